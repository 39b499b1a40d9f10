package io.orderflow.schemas.query;

import io.orderflow.schemas.json.Json;
import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The internal query API's contract, shared by the processor (serving) and the gateway (calling). */
class OrderQueriesTest {

    @Test
    void aListQueryAsksForTheWholeCappedListWithOnlyTheFiltersGiven() {
        assertThat(OrderQueries.ListQuery.of("b2b_order", null, "cus_42").parameters())
                .containsExactly(java.util.Map.entry("type", "b2b_order"), java.util.Map.entry("q", "cus_42"),
                        java.util.Map.entry("limit", 200));
    }

    @Test
    void aLimitIsHeldToTheSpecsCap() {
        assertThat(new OrderQueries.ListQuery(null, null, null, 5_000).limit()).isEqualTo(200);
        assertThat(new OrderQueries.ListQuery(null, null, null, -1).limit()).isZero();
    }

    @Test
    void theListAnswerIsOrdersAndIsCappedAt200() {
        List<tools.jackson.databind.JsonNode> rows = Collections.nCopies(250, Json.object().put("id", "ord_1"));

        OrderQueries.OrderList capped = new OrderQueries.OrderList(rows).capped();

        assertThat(capped.orders()).hasSize(200);
        assertThat(Json.tree(capped).has(OrderQueries.ORDER_ROWS)).isTrue();
        assertThat(Json.tree(new OrderQueries.ApprovalList(List.of())).has(OrderQueries.APPROVAL_ROWS)).isTrue();
    }
}
