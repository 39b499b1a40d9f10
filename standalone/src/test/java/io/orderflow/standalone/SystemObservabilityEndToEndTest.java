package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.orderflow.schemas.json.Json;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * What an operator scrapes and probes on the standalone system's one port: {@code /actuator/prometheus} covers the
 * four services (each meter tagged with its {@code service}), counts the orders started and ended, node executions
 * and webhook deliveries by outcome, and carries the Kafka Streams and Kafka client meters;
 * {@code /actuator/health/readiness} is the whole system's.
 */
@ExtendWith(SharedStandalone.class)
class SystemObservabilityEndToEndTest {

    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");
    private static final String FLOW = "storefront_order";
    private static final String STARTED = "orderflow_orders_started_total";
    private static final String ENDED = "orderflow_orders_ended_total";
    private static final String DELIVERIES = "orderflow_webhook_deliveries_total";
    private static WebTestClient http;
    private static int port;

    @BeforeAll
    static void connect(StandaloneSystem system) {
        http = SharedStandalone.client(system);
        port = system.gatewayPort();
    }

    @Test
    void one_scrape_counts_the_orders_of_all_four_services_with_their_streams_and_http_meters() throws Exception {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> http.get().uri("/actuator/health/readiness")
                .exchange().expectStatus().isOk());
        String before = scrape();
        double startedBefore = value(before, STARTED, Map.of("flow", FLOW, "service", "order-processor")).orElse(0.0);
        double completedBefore = value(before, ENDED,
                Map.of("flow", FLOW, "status", "completed", "service", "order-processor")).orElse(0.0);

        int orders = 3;
        for (int i = 0; i < orders; i++) {
            startOrder("cus_metrics_" + i);
        }

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            String text = scrape();
            assertThat(value(text, STARTED, Map.of("flow", FLOW, "service", "order-processor")))
                    .hasValue(startedBefore + orders);
            assertThat(value(text, ENDED, Map.of("flow", FLOW, "status", "completed", "service", "order-processor")))
                    .hasValue(completedBefore + orders);
        });

        String text = scrape();
        assertThat(List.of("gateway", "order-processor", "flow-runner", "webhook-dispatcher"))
                .as("every service's JVM meters, tagged with the service")
                .allSatisfy(service -> assertThat(value(text, "jvm_threads_live_threads", Map.of("service", service)))
                        .isPresent());
        assertThat(List.of("order-processor", "flow-runner")).as("both Kafka Streams applications' meters")
                .allSatisfy(service -> assertThat(value(text, "kafka_stream_thread_process_total",
                        Map.of("service", service))).hasValueSatisfying(processed -> assertThat(processed)
                        .isPositive()));
        assertThat(value(text, "orderflow_nodes_executions_total",
                Map.of("type", "end", "result", "end", "service", "flow-runner")))
                .as("the runner's node executions")
                .hasValueSatisfying(ends -> assertThat(ends).isGreaterThanOrEqualTo(orders));
        assertThat(value(text, "kafka_consumer_fetch_manager_records_lag_max", Map.of("service", "order-processor")))
                .as("the processor's consumer lag").isPresent();
        assertThat(value(text, "kafka_consumer_fetch_manager_records_consumed_total",
                Map.of("service", "webhook-dispatcher"))).as("the dispatcher's Spring Kafka consumers").isPresent();
        assertThat(value(text, "kafka_producer_record_send_total", Map.of("service", "gateway")))
                .as("the gateway's command producer")
                .hasValueSatisfying(sent -> assertThat(sent).isGreaterThanOrEqualTo(orders));
        assertThat(value(text, "http_server_requests_seconds_count",
                Map.of("service", "gateway", "uri", "/api/v1/orders", "method", "POST", "status", "201")))
                .hasValueSatisfying(count -> assertThat(count).isGreaterThanOrEqualTo(orders));
    }

    @Test
    void webhook_deliveries_are_counted_by_outcome() throws Exception {
        HttpServer accepting = receiver(204);
        HttpServer refusing = receiver(500);
        List<String> subscriptions = new ArrayList<>();
        try {
            for (HttpServer receiver : List.of(accepting, refusing)) {
                subscriptions.add(json(http.post().uri("/api/v1/webhook-subscriptions")
                        .contentType(MediaType.APPLICATION_JSON)
                        .bodyValue(Map.of("url", "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook",
                                "events", List.of("order.completed")))
                        .exchange().expectStatus().isCreated()).at("/subscription/id").asString());
            }
            String before = scrape();
            Map<String, Double> counted = new HashMap<>();
            for (String outcome : List.of("created", "delivered", "retrying")) {
                counted.put(outcome, value(before, DELIVERIES, Map.of("outcome", outcome,
                        "service", "webhook-dispatcher")).orElse(0.0));
            }

            startOrder("cus_metrics_hooks");

            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                String text = scrape();
                for (String outcome : List.of("created", "delivered", "retrying")) {
                    int expected = outcome.equals("created") ? 2 : 1; // one delivery to each receiver
                    assertThat(value(text, DELIVERIES, Map.of("outcome", outcome, "service", "webhook-dispatcher")))
                            .as(outcome).hasValueSatisfying(count -> assertThat(count)
                                    .isGreaterThanOrEqualTo(counted.get(outcome) + expected));
                }
            });
        } finally {
            subscriptions.forEach(id -> http.delete().uri("/api/v1/webhook-subscriptions/" + id).exchange()
                    .expectStatus().isOk());
            accepting.stop(0);
            refusing.stop(0);
        }
    }

    @Test
    void readiness_on_the_gateway_port_includes_every_service_behind_it() {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> http.get().uri("/actuator/health/readiness")
                .exchange().expectStatus().isOk().expectBody().jsonPath("$.status").isEqualTo("UP"));
        http.get().uri("/actuator/health/liveness").exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.status").isEqualTo("UP");
    }

    private static void startOrder(String customer) {
        http.post().uri("/api/v1/orders").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("flowId", FLOW, "input", Map.of("type", FLOW, "customerId", customer,
                        "currency", "USD", "lines", List.of(Map.of("sku", "MUG", "qty", 1, "unitPrice", 9.5)),
                        "meta", Map.of("shipTo", "1 Main Street, Springfield"))))
                .exchange().expectStatus().isCreated();
    }

    /** A webhook receiver on loopback that answers every delivery with {@code status}. */
    private static HttpServer receiver(int status) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/hook", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
        });
        server.start();
        return server;
    }

    private static JsonNode json(WebTestClient.ResponseSpec response) {
        return Json.MAPPER.readTree(response.expectBody().returnResult().getResponseBody());
    }

    /** The whole scrape (larger than WebTestClient buffers). */
    private static String scrape() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://localhost:" + port + "/actuator/prometheus")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }

    /** The value of the first sample of {@code name} whose labels include {@code labels}. */
    static Optional<Double> value(String scrape, String name, Map<String, String> labels) {
        for (String line : scrape.split("\n")) {
            if (!line.startsWith(name + "{") && !line.startsWith(name + " ")) {
                continue;
            }
            int close = line.lastIndexOf('}');
            Matcher label = LABEL.matcher(close < 0 ? "" : line.substring(name.length(), close));
            Map<String, String> found = new HashMap<>();
            while (label.find()) {
                found.put(label.group(1), label.group(2));
            }
            if (found.entrySet().containsAll(labels.entrySet())) {
                String sample = close < 0 ? line.substring(name.length()) : line.substring(close + 1);
                return Optional.of(Double.parseDouble(sample.trim().split(" ")[0]));
            }
        }
        return Optional.empty();
    }
}
