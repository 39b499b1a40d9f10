package io.orderflow.schemas.json;

import io.orderflow.schemas.model.OrderIndexRow;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.OrderType;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** Money survives every round trip through the contract's mapper as the two-decimal amount it was written as. */
class JsonMoneyTest {

    @Test
    void anAmountReadBackIntoATreeKeepsItsTwoDecimals() {
        String stored = "{\"subtotal\":165.00,\"tax\":13.20,\"total\":178.20,\"fxRate\":1,"
                + "\"lines\":[{\"unitPrice\":19.50}]}";

        JsonNode order = Json.MAPPER.readTree(stored);

        assertThat(order.get("total").isBigDecimal()).isTrue();
        assertThat(order.get("total").decimalValue()).isEqualTo(new BigDecimal("178.20"));
        assertThat(Json.write(order)).isEqualTo(stored);
    }

    @Test
    void anAmountSurvivesATopicRoundTripOfARecord() {
        OrderIndexRow row = new OrderIndexRow("ord_1", OrderType.STOREFRONT_ORDER, OrderStatus.COMPLETED, "Storefront",
                "storefront_order", 1, "ord_1.1", 1, "cus_1", "USD", new BigDecimal("165.00"), null, 1, 2, null);
        JsonSerde<OrderIndexRow> serde = JsonSerde.of(OrderIndexRow.class);

        byte[] bytes = serde.serializer().serialize("t", row);
        OrderIndexRow read = serde.deserializer().deserialize("t", bytes);

        assertThat(new String(bytes, StandardCharsets.UTF_8)).contains("\"total\":165.00");
        assertThat(read.total()).isEqualTo(new BigDecimal("165.00"));
        assertThat(Json.write(Json.tree(read))).contains("\"total\":165.00");
    }

    @Test
    void aDecimalIsWrittenPlain() {
        assertThat(Json.write(Json.object().put("amount", new BigDecimal("1E+3")))).isEqualTo("{\"amount\":1000}");
    }
}
