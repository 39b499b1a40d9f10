package io.orderflow.processor.query;

import io.orderflow.internal.InternalToken;
import io.orderflow.processor.TestSettings;
import io.orderflow.processor.streams.OrderStreams;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.query.OrderQueries;
import org.junit.jupiter.api.Test;
import org.springframework.http.ResponseEntity;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The scatter-gather answer: rows of every instance merged newest first, at most 200. */
class ListMergeTest {

    @Test
    void rowsOfEveryInstanceAreMergedNewestFirst() {
        List<JsonNode> mine = List.of(row("ord_m3", 3_000), row("ord_m1", 1_000));
        List<JsonNode> peer = List.of(row("ord_p4", 4_000), row("ord_p2", 2_000), row("ord_a3", 3_000));
        List<JsonNode> gathered = new ArrayList<>(mine);
        gathered.addAll(peer);

        JsonNode answer = OrderQueryRouter.merged("orders", gathered, 200);

        assertThat(ids(answer.get("orders"))).containsExactly("ord_p4", "ord_a3", "ord_m3", "ord_p2", "ord_m1");
    }

    @Test
    void theMergeKeepsOnlyTheNewestUpToTheLimit() {
        List<JsonNode> gathered = new ArrayList<>();
        for (int i = 0; i < 250; i++) {
            gathered.add(row("ord_%03d".formatted(i), 10_000 + i));
        }

        List<String> kept = ids(OrderQueryRouter.merged("orders", gathered, 200).get("orders"));

        assertThat(kept).hasSize(200);
        assertThat(kept.getFirst()).isEqualTo("ord_249");
        assertThat(kept.getLast()).isEqualTo("ord_050");
        assertThat(ids(OrderQueryRouter.merged("orders", gathered, 0).get("orders"))).isEmpty();
    }

    @Test
    void askingForMoreThan200RowsAsksTheInstancesFor200() {
        List<Integer> asked = new ArrayList<>();
        OrderQueryRouter router = new OrderQueryRouter(new OrderStreams(TestSettings.processor()), null,
                InternalToken.none()) {
            @Override
            public Mono<ResponseEntity<byte[]>> orders(OrderQueries.ListQuery query, boolean local,
                                                       boolean cursorInHeader) {
                asked.add(query.limit());
                return Mono.just(ResponseEntity.ok(new byte[] {'{', '}'}));
            }
        };
        InternalQueryController controller = new InternalQueryController(router);

        controller.orders(null, null, null, null, null, null, null, 1_000, false, false);
        controller.orders(null, null, null, null, null, null, null, 50, true, false);
        controller.orders(null, null, null, null, null, null, null, null, false, true);

        assertThat(asked).containsExactly(200, 50, 200);
    }

    private static JsonNode row(String id, long createdAt) {
        return Json.object().put("id", id).put("createdAt", createdAt);
    }

    private static List<String> ids(JsonNode rows) {
        List<String> ids = new ArrayList<>();
        rows.forEach(row -> ids.add(row.get("id").asString()));
        return ids;
    }
}
