package io.orderflow.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.gateway.testing.FakeProcessor.FakeOrder;
import io.orderflow.gateway.orders.OrderIds;
import io.orderflow.schemas.commands.CommandEnvelope;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.json.Json;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * The batch routes on a real broker, with the test processor answering the orders' commands: a batch is accepted at
 * once and runs to the end, each order acted on once; a stop ends it before its next order; a bad request is a 400
 * that writes nothing and sends nothing.
 */
class BatchesApiTest extends GatewayIntegrationTest {

    private static final Duration RUN = Duration.ofSeconds(30);

    private WebTestClient.ResponseSpec create(String body) {
        return http.post().uri("/api/v1/batches").contentType(MediaType.APPLICATION_JSON).bodyValue(body).exchange();
    }

    private JsonNode read(String id) {
        return Json.MAPPER.readTree(http.get().uri("/api/v1/batches/" + id).exchange().expectStatus().isOk()
                .expectBody().returnResult().getResponseBody());
    }

    private static List<String> waitingOrders(int count) {
        return IntStream.range(0, count).mapToObj(i -> {
            String id = OrderIds.random();
            PROCESSOR.put(new FakeOrder(id, "purchase_request", "fp", "waiting", null, "approval",
                    System.currentTimeMillis()));
            return id;
        }).toList();
    }

    private static long batchCommandsFor(String orderId) {
        return PROCESSOR.received().stream().map(CommandEnvelope::command)
                .filter(c -> c instanceof OrderCommand.ApplyBatchAction && c.orderId().equals(orderId)).count();
    }

    private static String ids(List<String> orders) {
        return Json.write(orders);
    }

    @Test
    void a_batch_is_accepted_at_once_and_acts_on_each_order_once() {
        List<String> orders = waitingOrders(3);
        String ended = OrderIds.random();
        PROCESSOR.put(new FakeOrder(ended, "purchase_request", "fp", "completed", null, null,
                System.currentTimeMillis()));
        List<String> all = List.of(orders.get(0), orders.get(1), ended, orders.get(2));

        JsonNode accepted = Json.MAPPER.readTree(create("""
                {"orderIds": %s, "action": "cancel", "reason": "Duplicate import"}""".formatted(ids(all)))
                .expectStatus().isAccepted()
                .expectHeader().value("Location", location -> assertThat(location).startsWith("/api/v1/batches/bat_"))
                .expectBody().returnResult().getResponseBody());
        String id = accepted.get("id").asString();
        assertThat(accepted.get("state").asString()).isEqualTo("running");
        assertThat(accepted.get("picked").asInt()).isEqualTo(4);
        assertThat(accepted.get("action").get("type").asString()).isEqualTo("cancel");
        assertThat(accepted.get("createdBy").asString()).isEqualTo("open deployment");

        JsonNode done = await().atMost(RUN).until(() -> read(id), batch -> batch.get("state").asString()
                .equals("completed"));
        assertThat(done.get("matched").asInt()).isEqualTo(4);
        assertThat(done.get("done").asInt()).isEqualTo(3);
        assertThat(done.get("failed").asInt()).isEqualTo(1);
        assertThat(done.get("failures")).singleElement().satisfies(failure -> {
            assertThat(failure.get("orderId").asString()).isEqualTo(ended);
            assertThat(failure.get("reason").asString()).isEqualTo("Order " + ended + " has already ended: completed");
        });
        orders.forEach(order -> {
            assertThat(PROCESSOR.orders().get(order).status()).isEqualTo("cancelled");
            assertThat(batchCommandsFor(order)).as(order).isEqualTo(1);
        });
        assertThat(PROCESSOR.received().stream().map(CommandEnvelope::command)
                .filter(c -> c instanceof OrderCommand.ApplyBatchAction b && b.batchId().equals(id))
                .map(OrderCommand::orderId).toList()).as("in the order given").isEqualTo(all);

        JsonNode listed = Json.MAPPER.readTree(http.get().uri("/api/v1/batches").exchange().expectStatus().isOk()
                .expectBody().returnResult().getResponseBody());
        assertThat(listed.get("batches").valueStream().map(b -> b.get("id").asString())).contains(id);
    }

    @Test
    void a_stop_ends_the_batch_before_its_next_order() {
        List<String> orders = waitingOrders(6);
        String id = Json.MAPPER.readTree(create("""
                {"orderIds": %s, "action": "cancel", "reason": "Wrong supplier", "rate": 1}""".formatted(ids(orders)))
                .expectStatus().isAccepted().expectBody().returnResult().getResponseBody()).get("id").asString();
        await().atMost(RUN).until(() -> read(id).get("done").asInt() >= 1);

        JsonNode stopped = Json.MAPPER.readTree(http.post().uri("/api/v1/batches/" + id + "/stop").exchange()
                .expectStatus().isOk().expectBody().returnResult().getResponseBody());

        assertThat(stopped.get("state").asString()).isEqualTo("stopped");
        assertThat(stopped.get("stoppedBy").asString()).isEqualTo("open deployment");
        int done = stopped.get("done").asInt();
        assertThat(done).isBetween(1, orders.size() - 1);
        long cancelled = orders.stream().filter(o -> PROCESSOR.orders().get(o).status().equals("cancelled")).count();
        assertThat(cancelled).isEqualTo(done);
        http.post().uri("/api/v1/batches/" + id + "/stop").exchange().expectStatus().isEqualTo(409)
                .expectBody().jsonPath("$.error").isEqualTo("Batch " + id + " has already stopped.");
        assertThat(read(id).get("done").asInt()).isEqualTo(done);
    }

    @Test
    void a_bad_request_is_a_400_that_writes_nothing_and_sends_nothing() {
        List<String> orders = waitingOrders(1);
        int listed = Json.MAPPER.readTree(http.get().uri("/api/v1/batches?limit=100").exchange().expectBody()
                .returnResult().getResponseBody()).get("batches").size();

        create("{\"orderIds\": " + ids(orders) + ", \"action\": \"cancel\"}").expectStatus().isBadRequest()
                .expectBody().jsonPath("$.error").isEqualTo("Invalid request body")
                .jsonPath("$.issues[0].path").isEqualTo("/reason");
        create("{\"filter\": {\"status\": \"sleeping\"}, \"action\": \"retry_incident\"}").expectStatus()
                .isBadRequest().expectBody().jsonPath("$.issues[0].path").isEqualTo("/filter/status");
        create("{\"orderIds\": " + ids(orders) + ", \"action\": \"cancel\", \"reason\": \"x\", \"rate\": 21}")
                .expectStatus().isBadRequest()
                .expectBody().jsonPath("$.error").isEqualTo("rate must be 1 to 20 orders a second");
        create("{\"orderIds\": " + ids(orders) + ", \"action\": \"archive\"}").expectStatus().isBadRequest();
        create("not json").expectStatus().isBadRequest();

        assertThat(Json.MAPPER.readTree(http.get().uri("/api/v1/batches?limit=100").exchange().expectBody()
                .returnResult().getResponseBody()).get("batches").size()).isEqualTo(listed);
        assertThat(batchCommandsFor(orders.getFirst())).isZero();
        assertThat(PROCESSOR.orders().get(orders.getFirst()).status()).isEqualTo("waiting");
    }

    @Test
    void unknown_batches_and_foreign_cursors_are_refused() {
        http.get().uri("/api/v1/batches/bat_0000000000000000").exchange().expectStatus().isNotFound()
                .expectBody().jsonPath("$.error").isEqualTo("Batch bat_0000000000000000 not found");
        http.get().uri("/api/v1/batches/not-a-batch").exchange().expectStatus().isNotFound();
        http.post().uri("/api/v1/batches/bat_0000000000000000/stop").exchange().expectStatus().isNotFound();
        http.get().uri("/api/v1/batches?cursor=bm90LW91cnM").exchange().expectStatus().isBadRequest();
        http.get().uri("/api/v1/batches?limit=101").exchange().expectStatus().isBadRequest();
    }

    @Test
    void the_list_pages_newest_first() {
        List<String> orders = waitingOrders(2);
        String first = Json.MAPPER.readTree(create("{\"orderIds\": [\"" + orders.get(0)
                + "\"], \"action\": \"cancel\", \"reason\": \"a\"}").expectStatus().isAccepted().expectBody()
                .returnResult().getResponseBody()).get("id").asString();
        String second = Json.MAPPER.readTree(create("{\"orderIds\": [\"" + orders.get(1)
                + "\"], \"action\": \"cancel\", \"reason\": \"b\"}").expectStatus().isAccepted().expectBody()
                .returnResult().getResponseBody()).get("id").asString();

        JsonNode page = Json.MAPPER.readTree(http.get().uri("/api/v1/batches?limit=1").exchange()
                .expectStatus().isOk().expectBody().returnResult().getResponseBody());
        assertThat(page.get("batches")).hasSize(1);
        assertThat(page.get("batches").get(0).has("failures")).as("the list leaves the failures out").isFalse();
        List<String> seen = new java.util.ArrayList<>();
        String cursor = null;
        do {
            JsonNode next = Json.MAPPER.readTree(http.get().uri("/api/v1/batches?limit=2"
                    + (cursor == null ? "" : "&cursor=" + cursor)).exchange().expectStatus().isOk().expectBody()
                    .returnResult().getResponseBody());
            next.get("batches").forEach(b -> seen.add(b.get("id").asString()));
            cursor = next.has("next") ? next.get("next").asString() : null;
        } while (cursor != null);
        assertThat(seen).doesNotHaveDuplicates().containsSubsequence(second, first);
    }
}
