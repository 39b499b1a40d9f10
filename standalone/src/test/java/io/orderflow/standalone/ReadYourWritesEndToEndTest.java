package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.schemas.json.Json;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * Reading your own writes on the real system: the version a command answers is what a read with {@code minVersion}
 * waits for; a change based on a stale read ({@code If-Match}) is refused by the order's agent with 412 and changes
 * nothing; a read naming the current {@code ETag} in {@code If-None-Match} is 304 without a body.
 */
@ExtendWith(SharedStandalone.class)
class ReadYourWritesEndToEndTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static WebTestClient http;

    @BeforeAll
    static void connect(StandaloneSystem system) {
        http = SharedStandalone.client(system);
    }

    @Test
    void approveThenReadWithMinVersion_staleIfMatchIs412_ifNoneMatchIs304() {
        String orderId = startPurchaseRequest();
        AtomicLong waiting = new AtomicLong();
        await().atMost(WAIT).untilAsserted(() -> {
            EntityExchangeResult<byte[]> read = http.get().uri("/api/v1/orders/{id}", orderId).exchange()
                    .expectStatus().isOk().expectBody().returnResult();
            JsonNode state = json(read);
            assertThat(state.get("status").asString()).isEqualTo("waiting");
            assertThat(state.get("waits").valueStream().map(w -> w.get("nodeId").asString())).contains("approval");
            assertThat(read.getResponseHeaders().getETag()).isEqualTo("\"" + state.get("version").asLong() + "\"");
            waiting.set(state.get("version").asLong());
        });
        String etag = "\"" + waiting.get() + "\"";

        // nothing changed since: 304, no body
        http.get().uri("/api/v1/orders/{id}", orderId).header("If-None-Match", etag).exchange()
                .expectStatus().isNotModified().expectHeader().valueEquals("ETag", etag).expectBody().isEmpty();

        // a cancel based on an older read is refused where the order's state lives, and changes nothing
        String stale = "\"" + (waiting.get() - 1) + "\"";
        http.post().uri("/api/v1/orders/{id}/cancel", orderId).contentType(MediaType.APPLICATION_JSON)
                .header("If-Match", stale).bodyValue(Map.of("reason", "on a stale read")).exchange()
                .expectStatus().isEqualTo(HttpStatus.PRECONDITION_FAILED)
                .expectBody().jsonPath("$.error").isEqualTo("Order " + orderId + " is at version " + waiting.get()
                        + ", not " + (waiting.get() - 1) + ": it changed since it was read; read it again and retry");
        http.get().uri("/api/v1/orders/{id}", orderId).exchange().expectStatus().isOk()
                .expectHeader().valueEquals("ETag", etag)
                .expectBody().jsonPath("$.status").isEqualTo("waiting")
                .jsonPath("$.waits[0].nodeId").isEqualTo("approval");

        // an approval on the current read takes effect and answers the version it produced
        EntityExchangeResult<byte[]> approved = http.post().uri("/api/v1/orders/{id}/approvals/{node}", orderId,
                        "approval").contentType(MediaType.APPLICATION_JSON).header("If-Match", etag)
                .bodyValue(Map.of("decision", "approved", "by", "maria")).exchange()
                .expectStatus().isOk().expectBody().returnResult();
        long produced = json(approved).get("version").asLong();
        assertThat(produced).isGreaterThan(waiting.get());
        assertThat(approved.getResponseHeaders().getETag()).isEqualTo("\"" + produced + "\"");

        // a read asking for that version sees the approval, whichever instance answers it
        EntityExchangeResult<byte[]> read = http.get().uri("/api/v1/orders/{id}?minVersion={v}", orderId, produced)
                .exchange().expectStatus().isOk().expectBody().returnResult();
        JsonNode state = json(read);
        assertThat(state.get("version").asLong()).isGreaterThanOrEqualTo(produced);
        assertThat(state.get("waits").valueStream().map(w -> w.get("nodeId").asString())).doesNotContain("approval");
        // the decision itself, not yet the run's report of the node resuming, which follows on its own time
        assertThat(state.get("timeline").valueStream()
                .filter(e -> e.get("kind").asString().equals("close:approval"))
                .map(e -> e.get("message").asString())).singleElement().asString().contains("approved by maria");

        // the old ETag no longer matches
        http.get().uri("/api/v1/orders/{id}", orderId).header("If-None-Match", etag).exchange()
                .expectStatus().isOk();
    }

    private static String startPurchaseRequest() {
        Map<String, Object> input = Map.of("type", "purchase_request", "customerId", "cus_ryw_" + System.nanoTime(),
                "currency", "USD", "lines", List.of(Map.of("sku", "LAPTOP-14", "qty", 2)), "meta", Map.of());
        EntityExchangeResult<byte[]> started = http.post().uri("/api/v1/orders")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("flowId", "purchase_request", "input", input)).exchange()
                .expectStatus().isCreated().expectBody().returnResult();
        assertThat(json(started).get("version").asLong()).isEqualTo(1);
        assertThat(started.getResponseHeaders().getETag()).isEqualTo("\"1\"");
        return json(started).get("orderId").asString();
    }

    private static JsonNode json(EntityExchangeResult<byte[]> result) {
        return Json.MAPPER.readTree(result.getResponseBody());
    }
}
