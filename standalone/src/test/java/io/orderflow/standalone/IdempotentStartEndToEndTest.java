package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.schemas.json.Json;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntFunction;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * The spec's idempotency rules against the real order-processor: racing repeats of one {@code Idempotency-Key} meet
 * in one partition and one store entry, so exactly one order is started whatever the timing.
 */
@ExtendWith(SharedStandalone.class)
class IdempotentStartEndToEndTest {

    private static WebTestClient http;

    @BeforeAll
    static void connect(StandaloneSystem system) {
        http = SharedStandalone.client(system);
    }

    private static String order(String customerId) {
        return Json.write(Map.of("flowId", "storefront_order", "input", Map.of(
                "type", "storefront_order", "customerId", customerId,
                "lines", List.of(Map.of("sku", "WIDGET-2", "qty", 1)),
                "meta", Map.of("shipTo", "1 Main Street, Springfield"))));
    }

    @Test
    void fifty_racing_identical_requests_give_one_201_and_49_replays_of_one_completed_order() {
        String customer = "cus_race_" + System.nanoTime();
        List<EntityExchangeResult<byte[]>> results = race(i -> order(customer), "race-" + customer);

        assertThat(results).filteredOn(r -> r.getStatus().value() == 201).hasSize(1);
        assertThat(results).filteredOn(r -> r.getStatus().value() == 200).hasSize(49)
                .allSatisfy(r -> assertThat(json(r).get("replayed").asBoolean()).isTrue());
        List<String> ids = results.stream().map(r -> json(r).get("orderId").asString()).distinct().toList();
        assertThat(ids).hasSize(1);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(ordersOf(customer))
                .extracting(row -> row.get("id").asString() + ":" + row.get("status").asString())
                .containsExactly(ids.getFirst() + ":completed"));
    }

    @Test
    void fifty_racing_requests_with_one_key_and_different_bodies_start_exactly_one_order() {
        String prefix = "cus_diff_" + System.nanoTime();
        List<EntityExchangeResult<byte[]>> results = race(i -> order(prefix + "_" + i), "race-" + prefix);

        assertThat(results).filteredOn(r -> r.getStatus().value() == 201).hasSize(1);
        assertThat(results).filteredOn(r -> r.getStatus().value() == 422).hasSize(49)
                .allSatisfy(r -> assertThat(json(r).get("error").asString()).contains("Idempotency-Key"));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(ordersOf(prefix)).hasSize(1));
    }

    private static List<JsonNode> ordersOf(String customerPrefix) {
        JsonNode list = json(http.get().uri("/api/v1/orders?q={q}", customerPrefix).exchange()
                .expectStatus().isOk().expectBody().returnResult());
        return list.get("orders").valueStream().toList();
    }

    private static List<EntityExchangeResult<byte[]>> race(IntFunction<String> body, String key) {
        try (ExecutorService pool = Executors.newFixedThreadPool(50)) {
            List<CompletableFuture<EntityExchangeResult<byte[]>>> calls = IntStream.range(0, 50)
                    .mapToObj(i -> CompletableFuture.supplyAsync(() -> http.post().uri("/api/v1/orders")
                            .contentType(MediaType.APPLICATION_JSON).header("Idempotency-Key", key)
                            .bodyValue(body.apply(i)).exchange().expectBody().returnResult(), pool))
                    .toList();
            return calls.stream().map(CompletableFuture::join).toList();
        }
    }

    private static JsonNode json(EntityExchangeResult<byte[]> result) {
        return Json.MAPPER.readTree(result.getResponseBody());
    }
}
