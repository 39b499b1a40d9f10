package io.orderflow.schemas.model;

import io.orderflow.schemas.json.Json;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.math.BigDecimal;

import static org.assertj.core.api.Assertions.assertThat;

/** The rules both the processor and the runner apply, defined once here. */
class ContractRulesTest {

    @Test
    void varsKeyReplacesEachRunOfNonAlphanumericsWithOneUnderscore() {
        assertThat(EventNames.varsKey("payment.received")).isEqualTo("payment_received");
        assertThat(EventNames.varsKey("return.requested")).isEqualTo("return_requested");
        assertThat(EventNames.varsKey("a -- b..c")).isEqualTo("a_b_c");
    }

    @Test
    void aScaledWaitIsDividedByTheTimeScaleButNeverBelowOneSecond() {
        assertThat(TimeScale.scaled(86_400_000, 1440)).isEqualTo(60_000);
        assertThat(TimeScale.scaled(5_000, 1440)).isEqualTo(1_000);
        assertThat(TimeScale.scaled(5_000, 1)).isEqualTo(5_000);
        assertThat(TimeScale.scaled(5_000, 0)).as("a scale below 1 counts as 1").isEqualTo(5_000);
    }

    @Test
    void theOrderSummaryTakesItsFieldsFromTheOrderAndLeavesOutWhatItHasNotGot() {
        JsonNode order = Json.MAPPER.readTree("""
                {"id":"ord_1","type":"storefront_order","title":"Storefront · cus_1","customerId":"cus_1",
                 "currency":"EUR","lines":[{"sku":"A"}],"meta":{},"subtotal":100.00,"fxRate":0.92}""");

        JsonNode summary = Json.tree(OrderSummary.of(order, "ord_ignored"));

        assertThat(Json.write(summary)).isEqualTo("{\"id\":\"ord_1\",\"type\":\"storefront_order\","
                + "\"title\":\"Storefront · cus_1\",\"customerId\":\"cus_1\",\"currency\":\"EUR\",\"subtotal\":100.00,"
                + "\"fxRate\":0.92}");
        assertThat(OrderSummary.of(Json.object(), "ord_2").id()).isEqualTo("ord_2");
        assertThat(OrderSummary.of(order, null).subtotal()).isEqualTo(new BigDecimal("100.00"));
    }
}
