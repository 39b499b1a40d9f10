package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.schemas.json.Json;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * Batch operations on the standalone system: a cancel by filter cancels every order it matched, once, each order's
 * timeline naming the batch, and only those; a stop ends a slow batch before its next order, what it did staying done;
 * a bad request changes nothing.
 */
@ExtendWith(SharedStandalone.class)
class BatchesEndToEndTest {

    private static final Duration ORDINARY = Duration.ofSeconds(60);

    private static WebTestClient http;

    @BeforeAll
    static void start(StandaloneSystem system) {
        http = SharedStandalone.client(system);
    }

    /** A customer id no other test uses, so a filter on it matches this test's orders only. */
    private static String customer() {
        return "cus_batch" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    }

    /**
     * A purchase request of {@code customer}: over 1,000 it waits at the manager's approval; under it, it ends without
     * waiting (completed, or out of stock).
     */
    private static String purchaseRequest(String customer, int laptops) {
        Map<String, Object> input = Map.of("type", "purchase_request", "customerId", customer, "currency", "USD",
                "lines", List.of(Map.of("sku", laptops > 0 ? "LAPTOP-14" : "PAPER-A4", "qty", Math.max(1, laptops))),
                "meta", Map.of("shipTo", "HQ"));
        return json(http.post().uri("/api/v1/orders").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("flowId", "purchase_request", "input", input)).exchange()
                .expectStatus().isCreated()).get("orderId").asString();
    }

    private static List<String> waitingOrders(String customer, int count) {
        List<String> orders = IntStream.range(0, count).mapToObj(i -> purchaseRequest(customer, 2)).toList();
        await().atMost(ORDINARY).untilAsserted(() -> orders.forEach(id ->
                assertThat(order(id).get("status").asString()).as(id).isEqualTo("waiting")));
        return orders;
    }

    private static JsonNode order(String id) {
        return json(http.get().uri("/api/v1/orders/" + id).exchange().expectStatus().isOk());
    }

    private static JsonNode batch(String id) {
        return json(http.get().uri("/api/v1/batches/" + id).exchange().expectStatus().isOk());
    }

    private static JsonNode json(WebTestClient.ResponseSpec response) {
        return Json.MAPPER.readTree(response.expectBody().returnResult().getResponseBody());
    }

    private static WebTestClient.ResponseSpec create(String body) {
        return http.post().uri("/api/v1/batches").contentType(MediaType.APPLICATION_JSON).bodyValue(body).exchange();
    }

    private static List<JsonNode> cancels(JsonNode order) {
        return order.get("timeline").valueStream().filter(e -> e.get("kind").asString().equals("cancel")).toList();
    }

    @Test
    void a_cancel_by_filter_cancels_every_matched_order_once_and_names_the_batch_in_its_timeline() {
        String customer = customer();
        List<String> waiting = waitingOrders(customer, 5);
        String small = purchaseRequest(customer, 0);
        String ended = await().atMost(ORDINARY).until(() -> order(small).get("status").asString(),
                status -> !List.of("queued", "running", "waiting").contains(status));

        JsonNode accepted = json(create("""
                {"filter": {"status": "waiting", "type": "purchase_request", "q": "%s"},
                 "action": "cancel", "reason": "Budget frozen"}""".formatted(customer)).expectStatus().isAccepted());
        String id = accepted.get("id").asString();
        assertThat(accepted.get("state").asString()).isEqualTo("running");

        JsonNode done = await().atMost(ORDINARY).until(() -> batch(id),
                b -> b.get("state").asString().equals("completed"));
        assertThat(done.get("matched").asInt()).isEqualTo(5);
        assertThat(done.get("done").asInt()).isEqualTo(5);
        assertThat(done.get("failed").asInt()).isZero();
        assertThat(done.get("failures")).isEmpty();
        assertThat(done.get("phase").asString()).isEqualTo("acting");
        for (String orderId : waiting) {
            JsonNode order = order(orderId);
            assertThat(order.get("status").asString()).as(orderId).isEqualTo("cancelled");
            assertThat(order.get("reason").asString()).isEqualTo("Budget frozen");
            assertThat(cancels(order)).as(orderId).singleElement().satisfies(entry -> {
                assertThat(entry.get("message").asString()).isEqualTo("Cancelled by batch " + id + ": Budget frozen");
                assertThat(entry.get("data").get("batchId").asString()).isEqualTo(id);
                assertThat(entry.get("data").get("by").asString()).isEqualTo("open deployment");
            });
        }
        assertThat(order(small).get("status").asString()).as("not matched: it had ended").isEqualTo(ended);
        assertThat(cancels(order(small))).isEmpty();
        JsonNode listed = json(http.get().uri("/api/v1/batches").exchange().expectStatus().isOk());
        assertThat(listed.get("batches").valueStream().map(b -> b.get("id").asString())).contains(id);
    }

    @Test
    void a_stop_ends_a_batch_before_its_next_order_and_what_it_did_stays_done() {
        String customer = customer();
        List<String> waiting = waitingOrders(customer, 5);
        String id = json(create("""
                {"filter": {"q": "%s"}, "action": "cancel", "reason": "Wrong supplier", "rate": 1}"""
                .formatted(customer)).expectStatus().isAccepted()).get("id").asString();
        await().atMost(ORDINARY).until(() -> batch(id).get("done").asInt() >= 1);

        JsonNode stopped = json(http.post().uri("/api/v1/batches/" + id + "/stop").exchange().expectStatus().isOk());

        assertThat(stopped.get("state").asString()).isEqualTo("stopped");
        assertThat(stopped.get("stoppedBy").asString()).isEqualTo("open deployment");
        int done = stopped.get("done").asInt();
        assertThat(done).isBetween(1, waiting.size() - 1);
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(batch(id).get("done").asInt()).isEqualTo(done);
            assertThat(waiting.stream().filter(o -> order(o).get("status").asString().equals("cancelled")))
                    .hasSize(done);
        });
        assertThat(waiting.stream().filter(o -> order(o).get("status").asString().equals("waiting")))
                .hasSize(waiting.size() - done);
        http.post().uri("/api/v1/batches/" + id + "/stop").exchange().expectStatus().isEqualTo(409);
    }

    @Test
    void a_bad_request_is_refused_and_changes_nothing() {
        String customer = customer();
        List<String> waiting = waitingOrders(customer, 1);
        JsonNode before = json(http.get().uri("/api/v1/batches?limit=1").exchange().expectStatus().isOk());

        create("{\"filter\": {\"q\": \"" + customer + "\"}, \"action\": \"cancel\"}").expectStatus().isBadRequest()
                .expectBody().jsonPath("$.issues[0].path").isEqualTo("/reason")
                .jsonPath("$.issues[0].message").isEqualTo("is required by the cancel action");
        create("{\"filter\": {\"q\": \"" + customer + "\", \"status\": \"paused\"}, \"action\": \"cancel\", "
                + "\"reason\": \"x\"}").expectStatus().isBadRequest();
        create("{\"filter\": {\"q\": \"" + customer + "\"}, \"action\": \"cancel\", \"reason\": \""
                + "r".repeat(501) + "\"}").expectStatus().isBadRequest();
        create("{\"filter\": {\"q\": \"" + customer + "\"}, \"action\": \"delete\"}").expectStatus().isBadRequest();

        assertThat(json(http.get().uri("/api/v1/batches?limit=1").exchange().expectStatus().isOk()))
                .isEqualTo(before);
        JsonNode order = order(waiting.getFirst());
        assertThat(order.get("status").asString()).isEqualTo("waiting");
        assertThat(cancels(order)).isEmpty();
    }
}
