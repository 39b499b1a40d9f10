package io.orderflow.gateway;

import static io.orderflow.gateway.testing.RawHttp.get;
import static io.orderflow.gateway.testing.RawHttp.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.gateway.testing.RawHttp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Every request on a kept-alive connection gets an answer, whatever the request before it was: malformed, answered
 * without its body being read, or pipelined behind a slow one.
 */
class KeepAliveTest extends GatewayIntegrationTest {

    private static final Duration PATIENCE = Duration.ofSeconds(5);

    /** Answered without anybody reading the request (404, 405, a GET): the cases that stalled the connection. */
    @ParameterizedTest
    @ValueSource(strings = {"PUT /api/v1/orders", "GET /health", "GET /api/v1/nothing-here", "GET /api/v1/flows",
            "DELETE /api/v1/orders/ord_x1", "PATCH /api/v1/webhook-subscriptions"})
    void a_request_queued_behind_a_slow_one_and_answered_without_reading_it_leaves_the_connection_usable(
            String quick) {
        String[] methodAndPath = quick.split(" ");
        try (RawHttp connection = new RawHttp(port, PATIENCE)) {
            // The read goes to the processor's query API over HTTP: answered later, so the next request is queued.
            connection.send(get("/api/v1/orders/ord_slow"),
                    request(methodAndPath[0], methodAndPath[1], "text/plain", "hello"));
            assertThat(connection.read().status()).isEqualTo(404);
            assertThat(connection.read().status()).isBetween(200, 499);

            connection.send(get("/health"));
            assertThat(connection.read().status()).as("the request after them is answered").isEqualTo(200);
        }
    }

    @Test
    void the_signed_event_endpoint_answers_right_after_a_405_on_the_same_connection() {
        try (RawHttp connection = new RawHttp(port, PATIENCE)) {
            connection.send(request("PUT", "/api/v1/orders", "text/plain", "not an order"));
            assertThat(connection.read().status()).isEqualTo(405);
            connection.send(request("POST", "/api/v1/webhooks/events", "application/json",
                    "{\"orderId\": \"ord_x1\", \"event\": \"payment.received\"}"));
            RawHttp.Response answer = connection.read();
            assertThat(answer.status()).isEqualTo(401);
            assertThat(answer.body()).contains("Missing X-Service-Signature header");
        }
    }

    @Test
    void an_unread_body_past_the_drain_limit_is_answered_with_connection_close() {
        try (RawHttp connection = new RawHttp(port, PATIENCE)) {
            connection.send(request("PUT", "/api/v1/orders", Map.of("Content-Type", "text/plain"),
                    new byte[2 * 1024 * 1024]));
            RawHttp.Response answer = connection.read();
            assertThat(answer.status()).isEqualTo(405);
            assertThat(answer.closesConnection()).isTrue();
            assertThat(connection.read()).as("closed, not left waiting").isEqualTo(RawHttp.CLOSED);
        }
        try (RawHttp next = new RawHttp(port, PATIENCE)) {
            next.send(get("/health"));
            assertThat(next.read().status()).isEqualTo(200);
        }
    }

    @Test
    void a_body_too_large_to_read_is_answered_413_with_connection_close() {
        try (RawHttp connection = new RawHttp(port, PATIENCE)) {
            connection.send(request("POST", "/api/v1/orders", Map.of("Content-Type", "application/json"),
                    ("{\"flowId\": \"" + "f".repeat(3_000_000) + "\"}").getBytes()));
            RawHttp.Response answer = connection.read();
            assertThat(answer.status()).isEqualTo(413);
            assertThat(answer.body()).contains("too large");
            assertThat(answer.closesConnection()).isTrue();
        }
    }

    @Test
    void a_client_waiting_for_100_continue_gets_the_early_answer_and_the_connection_closes() {
        try (RawHttp connection = new RawHttp(port, PATIENCE)) {
            connection.send(request("PUT", "/api/v1/orders", Map.of("Content-Type", "text/plain",
                    "Expect", "100-continue", "Content-Length", "5"), null));
            RawHttp.Response answer = connection.read();
            assertThat(answer.status()).isEqualTo(405);
            assertThat(answer.closesConnection()).isTrue();
        }
    }

    /**
     * A body larger than the in-memory limit, queued behind a slow request: Reactor Netty 1.3.7 stops reading it half
     * way, so the handler waits for the rest forever. An idle request body times out instead: 408, and the connection
     * closes.
     */
    @Test
    void a_large_body_queued_behind_a_slow_request_is_answered() throws Exception {
        byte[] large = ("{\"event\": \"" + "e".repeat(700_000) + "\"}").getBytes();
        try (ExecutorService clients = Executors.newFixedThreadPool(8)) {
            List<Future<RawHttp.Response>> answers = new ArrayList<>();
            for (int attempt = 0; attempt < 24; attempt++) {
                answers.add(clients.submit(() -> {
                    try (RawHttp connection = new RawHttp(port, Duration.ofSeconds(20))) {
                        connection.send(get("/api/v1/orders/ord_slow"), request("POST", "/api/v1/orders/ord_x1/events",
                                Map.of("Content-Type", "application/json"), large));
                        assertThat(connection.read().status()).isEqualTo(404);
                        return connection.read();
                    }
                }));
            }
            for (Future<RawHttp.Response> answer : answers) {
                assertThat(answer.get().status()).isIn(413, 408);
                assertThat(answer.get().closesConnection()).isTrue();
            }
        }
    }

}
