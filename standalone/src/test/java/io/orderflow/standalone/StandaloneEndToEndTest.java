package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.testing.TestKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The walking skeleton as a new user drives it: the standalone system on its in-process broker, over HTTP, and
 * again after a restart on the same data.
 */
class StandaloneEndToEndTest {

    /** Beyond ASCII, to show that the order's view goes out as UTF-8. */
    private static final String LINE_NAME = "T-shirt « été » 👕";

    private static final Map<String, Object> STOREFRONT_ORDER = Map.of(
            "flowId", "storefront_order",
            "input", Map.of(
                    "type", "storefront_order",
                    "customerId", "cus_e2e",
                    "currency", "USD",
                    "lines", List.of(Map.of("sku", "TSHIRT-RED-M", "name", LINE_NAME, "qty", 2, "unitPrice", 19.5)),
                    "meta", Map.of("shipTo", "1 Main Street, Springfield")));

    @Test
    void startsAnOrderThatCompletesAndKeepsItAcrossARestart() {
        StandaloneSettings settings = new StandaloneSettings(0, TestKafka.uniqueStateDir("standalone-e2e"),
                Optional.empty(), 0);
        String orderId;

        try (StandaloneSystem system = StandaloneSystem.start(settings)) {
            WebTestClient http = client(system);

            http.get().uri("/health").exchange()
                    .expectStatus().isOk()
                    .expectBody().jsonPath("$.ok").isEqualTo(true).jsonPath("$.service").isEqualTo("gateway");

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> http.get().uri("/api/v1/flows").exchange()
                    .expectStatus().isOk()
                    .expectBody()
                    .jsonPath("$.flows.length()").isEqualTo(5)
                    .jsonPath("$.flows[?(@.id == 'storefront_order')].publishedVersion").isEqualTo(1));

            orderId = (String) http.post().uri("/api/v1/orders").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(STOREFRONT_ORDER).exchange()
                    .expectStatus().isEqualTo(HttpStatus.CREATED)
                    .expectHeader().exists("Location")
                    .expectBody(Map.class).returnResult().getResponseBody().get("orderId");
            assertThat(orderId).startsWith("ord_");

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> http.get().uri("/api/v1/orders/" + orderId)
                    .exchange()
                    .expectStatus().isOk()
                    .expectBody().jsonPath("$.status").isEqualTo("completed"));

            http.get().uri("/api/v1/orders/" + orderId).exchange()
                    .expectBody()
                    .jsonPath("$.orderId").isEqualTo(orderId)
                    .jsonPath("$.flow.flowId").isEqualTo("storefront_order")
                    .jsonPath("$.order.total").isNumber()
                    .jsonPath("$.order.lines[0].name").isEqualTo(LINE_NAME)
                    .jsonPath("$.nodes").isNotEmpty()
                    .jsonPath("$.edges").isNotEmpty()
                    .jsonPath("$.timeline").isNotEmpty()
                    .jsonPath("$.generation").isEqualTo(1);

            assertTimelineReadsInTheOrderThingsHappened(http, orderId);

            http.get().uri("/api/v1/orders/ord_does_not_exist").exchange().expectStatus().isNotFound();
        }

        try (StandaloneSystem restarted = StandaloneSystem.start(settings)) {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> client(restarted).get()
                    .uri("/api/v1/orders/" + orderId).exchange()
                    .expectStatus().isOk()
                    .expectBody().jsonPath("$.status").isEqualTo("completed"));

            // money read back from the stores is the two-decimal amount it was, not a double (39.0)
            String body = client(restarted).get().uri("/api/v1/orders/" + orderId).exchange()
                    .expectBody(String.class).returnResult().getResponseBody();
            assertThat(body).contains("\"unitPrice\":19.50", "\"subtotal\":39.00", "\"tax\":3.12",
                    "\"total\":42.12");
        }
    }

    /**
     * Started, running, then each node in turn and the end: "Order running" comes before the work it started, and every
     * entry is at the time it happened.
     */
    @SuppressWarnings("unchecked")
    private static void assertTimelineReadsInTheOrderThingsHappened(WebTestClient http, String orderId) {
        Map<String, Object> state = http.get().uri("/api/v1/orders/" + orderId).exchange()
                .expectBody(Map.class).returnResult().getResponseBody();
        List<Map<String, Object>> timeline = (List<Map<String, Object>>) state.get("timeline");
        List<String> messages = timeline.stream().map(entry -> (String) entry.get("message")).toList();
        assertThat(messages).satisfiesExactly(
                m -> assertThat(m).startsWith("Started on flow"),
                m -> assertThat(m).isEqualTo("Order running"),
                m -> assertThat(m).startsWith("Price order " + orderId + ":"),
                m -> assertThat(m).startsWith("Sales tax:"),
                m -> assertThat(m).startsWith("Charge card:"),
                m -> assertThat(m).startsWith("Reserve stock:"),
                m -> assertThat(m).startsWith("Ship order " + orderId + ":"),
                m -> assertThat(m).startsWith("Send receipt:"),
                m -> assertThat(m).startsWith("Completed:"),
                m -> assertThat(m).isEqualTo("Order completed"));
        List<Long> times = timeline.stream().map(entry -> ((Number) entry.get("at")).longValue()).toList();
        assertThat(times).isSorted();
    }

    private static WebTestClient client(StandaloneSystem system) {
        return WebTestClient.bindToServer()
                .baseUrl("http://localhost:" + system.gatewayPort())
                .responseTimeout(Duration.ofSeconds(15))
                .build();
    }
}
