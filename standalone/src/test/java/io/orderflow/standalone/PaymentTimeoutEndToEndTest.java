package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.json.Json;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * The one seeded outcome that needs a long wait to run out: a B2B order whose payment never arrives. With
 * {@code TIME_SCALE} set so that its 30 days last 3 seconds, the wait closes on its {@code timeout} branch and the
 * order ends {@code cancelled} at the flow's {@code unpaid} End node. With {@code ORDER_RETENTION} of a few seconds, the
 * ended order is then archived: its read answers 404 saying so, and the list and the counts no longer have it.
 */
@OwnSystem
class PaymentTimeoutEndToEndTest {

    /** 30 days in 3 seconds. */
    private static final long TIME_SCALE = Duration.ofDays(30).toSeconds() / 3;

    @Test
    void a_b2b_order_whose_payment_never_arrives_is_cancelled_when_its_wait_runs_out() {
        // The services read TIME_SCALE like any setting; a system property stands in for the environment here.
        System.setProperty("TIME_SCALE", String.valueOf(TIME_SCALE));
        System.setProperty("ORDER_RETENTION", "4s");
        try (StandaloneSystem system = StandaloneSystem.start(new StandaloneSettings(0,
                TestKafka.uniqueStateDir("payment-timeout-e2e"), Optional.empty(), 0))) {
            System.clearProperty("TIME_SCALE");
            System.clearProperty("ORDER_RETENTION");
            WebTestClient http = SharedStandalone.client(system);
            String orderId = Json.MAPPER.readTree(http.post().uri("/api/v1/orders")
                    .contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("flowId", "b2b_order", "input", Map.of(
                            "type", "b2b_order", "customerId", "cus_slow_payer",
                            "lines", List.of(Map.of("sku", "WIDGET-1", "qty", 4)),
                            "meta", Map.of("shipTo", "9 Quay Street, Galway"))))
                    .exchange().expectStatus().isCreated().expectBody().returnResult().getResponseBody())
                    .get("orderId").asString();

            JsonNode waiting = await().atMost(Duration.ofSeconds(30)).until(() -> read(http, orderId),
                    order -> order.get("waits").size() == 1);
            JsonNode wait = waiting.get("waits").get(0);
            assertThat(wait.get("event").asString()).isEqualTo("payment.received");
            assertThat(wait.get("deadline").asLong() - wait.get("since").asLong())
                    .as("the deadline shown is the scaled one").isBetween(2_900L, 3_100L);

            JsonNode ended = await().atMost(Duration.ofSeconds(30)).until(() -> read(http, orderId),
                    order -> order.get("status").asString().equals("cancelled"));
            assertThat(ended.get("reason").asString()).isEqualTo("Payment was not received within 30 days");
            assertThat(ended.get("waits").isEmpty()).isTrue();
            assertThat(ended.get("nodes").get("await_payment").get("branches").valueStream()
                    .map(JsonNode::asString)).containsExactly("timeout");
            assertThat(ended.get("nodes").get("unpaid").get("status").asString()).isEqualTo("succeeded");
            assertThat(ended.get("nodes").get("capture").get("status").asString()).isIn("pending", "skipped");

            // a payment that arrives after the wait closed finds nobody waiting
            http.post().uri("/api/v1/orders/" + orderId + "/events").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("event", "payment.received")).exchange()
                    .expectStatus().isOk().expectBody().json("{\"delivered\": false}")
                    .jsonPath("$.version").isNumber();

            // and once ORDER_RETENTION has passed since it ended, the order is archived
            await().atMost(Duration.ofSeconds(30)).until(() -> http.get().uri("/api/v1/orders/" + orderId)
                    .exchange().returnResult(String.class).getStatus().value() == 404);
            JsonNode archived = Json.MAPPER.readTree(http.get().uri("/api/v1/orders/" + orderId).exchange()
                    .expectStatus().isNotFound().expectBody().returnResult().getResponseBody());
            assertThat(archived.get("error").asString()).startsWith("Order " + orderId + " was archived at ")
                    .endsWith("its final state is on the orders-archive topic");
            assertThat(Json.MAPPER.readTree(http.get().uri("/api/v1/orders?q=cus_slow_payer").exchange()
                    .expectStatus().isOk().expectBody().returnResult().getResponseBody()).get("orders")).isEmpty();
            JsonNode counts = Json.MAPPER.readTree(http.get().uri("/api/v1/orders/counts?q=cus_slow_payer").exchange()
                    .expectStatus().isOk().expectBody().returnResult().getResponseBody());
            assertThat(counts.get("total").asLong()).isZero();
            assertThat(counts.get("retentionMs").asLong()).isEqualTo(4_000);
        } finally {
            System.clearProperty("ORDER_RETENTION");
            System.clearProperty("TIME_SCALE");
        }
    }

    private static JsonNode read(WebTestClient http, String orderId) {
        return Json.MAPPER.readTree(http.get().uri("/api/v1/orders/" + orderId).exchange()
                .expectStatus().isOk().expectBody().returnResult().getResponseBody());
    }
}
