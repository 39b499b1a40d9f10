package io.orderflow.gateway.orders;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.orderflow.gateway.testing.FakeProcessor.FakeOrder;
import io.orderflow.gateway.testing.GatewayDeployment;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The gateway with several order-processor instances ({@code PROCESSOR_URLS}) on a real broker: a read is answered
 * while one instance is down or rebalancing, and is a 503 with {@code Retry-After}, never a 500, when none answers.
 */
class ProcessorFailoverTest {

    private static final String ORDER = OrderIds.random();

    private static GatewayDeployment deployment;
    private static Stub rebalancing;
    private static Stub broken;
    private static String down;

    @BeforeAll
    static void start() throws IOException {
        deployment = new GatewayDeployment(null);
        deployment.processor.put(new FakeOrder(ORDER, "storefront_order", "fp", "running", null, null, 0));
        rebalancing = answering(503, "{\"error\":\"The order processor is rebalancing; retry shortly\"}");
        broken = answering(500, "{\"error\":\"boom\"}");
        try (ServerSocket socket = new ServerSocket(0)) {
            down = "http://127.0.0.1:" + socket.getLocalPort();
        }
    }

    @AfterAll
    static void stop() {
        deployment.close();
        rebalancing.server().stop(0);
        broken.server().stop(0);
    }

    @Test
    void reads_are_answered_by_the_instance_that_is_up_while_the_first_one_is_down() {
        WebTestClient http = gateway(down, deployment.queries.url());
        for (int i = 0; i < 5; i++) {
            http.get().uri("/api/v1/orders/" + ORDER).exchange().expectStatus().isOk()
                    .expectBody().jsonPath("$.orderId").isEqualTo(ORDER);
            http.get().uri("/api/v1/orders").exchange().expectStatus().isOk()
                    .expectBody().jsonPath("$.orders[0].id").isEqualTo(ORDER);
        }
    }

    @Test
    void a_read_moves_on_from_an_instance_that_is_rebalancing_or_failing() {
        WebTestClient http = gateway(url(rebalancing), url(broken), deployment.queries.url());
        int rebalancingCalls = rebalancing.calls().get();
        int brokenCalls = broken.calls().get();
        http.get().uri("/api/v1/orders/" + ORDER).exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.status").isEqualTo("running");
        assertThat(rebalancing.calls().get()).isGreaterThan(rebalancingCalls);
        assertThat(broken.calls().get()).isGreaterThan(brokenCalls);
        http.get().uri("/api/v1/orders/ord_nothere").exchange().expectStatus().isNotFound();
    }

    @Test
    void when_no_instance_answers_a_read_is_503_with_retry_after_never_500() {
        WebTestClient http = gateway(url(broken), down, url(rebalancing));
        for (String path : new String[] {"/api/v1/orders/" + ORDER, "/api/v1/orders", "/api/v1/incidents"}) {
            http.get().uri(path).exchange().expectStatus().isEqualTo(503)
                    .expectHeader().exists("Retry-After")
                    .expectBody().jsonPath("$.error").value(error -> assertThat((String) error).isNotBlank());
        }
        http.get().uri("/api/v1/orders/" + ORDER).exchange().expectStatus().isEqualTo(503)
                .expectBody().jsonPath("$.error").isEqualTo("The order processor is rebalancing; retry shortly");
        WebTestClient alone = gateway(url(broken));
        alone.get().uri("/api/v1/orders/" + ORDER).exchange().expectStatus().isEqualTo(503)
                .expectHeader().exists("Retry-After")
                .expectBody().jsonPath("$.error").isEqualTo("The order processor could not answer; retry later");
    }

    @Test
    void processor_url_alone_still_names_the_one_instance() {
        WebTestClient http = gateway(deployment.queries.url());
        http.get().uri("/api/v1/orders/" + ORDER).exchange().expectStatus().isOk();
    }

    private static WebTestClient gateway(String... processorUrls) {
        return deployment.startInstance("--orderflow.gateway.processor-url=" + String.join(",", processorUrls));
    }

    private static String url(Stub stub) {
        return "http://127.0.0.1:" + stub.server().getAddress().getPort();
    }

    /** A stand-in processor instance and the requests it got. */
    private record Stub(HttpServer server, AtomicInteger calls) {
    }

    /** A stand-in processor instance that answers every request with {@code status} and {@code body}. */
    private static Stub answering(int status, String body) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        AtomicInteger calls = new AtomicInteger();
        server.createContext("/", exchange -> {
            calls.incrementAndGet();
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.start();
        return new Stub(server, calls);
    }
}
