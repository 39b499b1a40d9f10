package io.orderflow.standalone;

import static io.orderflow.standalone.SystemObservabilityEndToEndTest.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.orderflow.schemas.json.Json;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * The meters an operator watches beyond the counts of orders, on the standalone system after a few orders: orders in
 * flight by status, consumer lag by group and topic, the webhook delivery lag, mails by SMTP answer, ops chat turns by
 * who answered, node failures by type, HTTP server and JVM meters; and {@code GET /api/v1/system}, which reads the
 * same meters for the dashboard's System page.
 */
@ExtendWith(SharedStandalone.class)
class SystemMetersEndToEndTest {

    private static final String IN_FLIGHT = "orderflow_orders_in_flight";
    private static final String LAG = "orderflow_consumer_lag";
    private static final String DELIVERY_LAG = "orderflow_webhook_delivery_lag_seconds_count";
    private static final String MAILS = "orderflow_mail_intake_total";
    private static final String CHAT = "orderflow_chat_turns_total";
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static WebTestClient http;
    private static StandaloneSystem system;

    @BeforeAll
    static void connect(StandaloneSystem shared) {
        system = shared;
        http = SharedStandalone.client(shared);
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> http.get().uri("/actuator/health/readiness")
                .exchange().expectStatus().isOk());
    }

    @Test
    void orders_waiting_are_in_flight_and_every_consumer_group_has_its_lag() throws Exception {
        double waitingBefore = value(scrape(), IN_FLIGHT, Map.of("status", "waiting")).orElse(0.0);
        String waiting = start("b2b_order", "cus_meters_waiting", "WIDGET-1", "EUR");
        await().atMost(Duration.ofSeconds(60)).until(() -> status(waiting).equals("waiting"));

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            String text = scrape();
            assertThat(value(text, IN_FLIGHT, Map.of("status", "waiting", "service", "order-processor")))
                    .as("the b2b order waits for its payment").hasValueSatisfying(n -> assertThat(n)
                            .isGreaterThanOrEqualTo(waitingBefore + 1));
            assertThat(value(text, IN_FLIGHT, Map.of("status", "queued"))).isPresent();
            assertThat(value(text, IN_FLIGHT, Map.of("status", "running"))).isPresent();
            // the dispatcher's listeners are groups of their own, named by their ids
            for (String group : List.of("orderflow-order-processor", "orderflow-flow-runner",
                    "webhook-event-fan-out")) {
                assertThat(value(text, LAG, Map.of("group", group, "service", "gateway"))).as(group)
                        .hasValueSatisfying(lag -> assertThat(lag).isGreaterThanOrEqualTo(0));
            }
            assertThat(value(text, LAG, Map.of("group", "orderflow-order-processor", "topic", "order-commands")))
                    .as("the processor's lag on its commands, caught up").hasValueSatisfying(lag -> assertThat(lag)
                            .isLessThan(10));
        });
    }

    @Test
    void a_delivered_webhook_records_its_lag_and_node_failures_are_counted_by_type() throws Exception {
        HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hook", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        receiver.start();
        String subscription = Json.MAPPER.readTree(http.post().uri("/api/v1/webhook-subscriptions")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("url", "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook",
                        "events", List.of("order.completed")))
                .exchange().expectStatus().isCreated().expectBody().returnResult().getResponseBody())
                .at("/subscription/id").asString();
        try {
            double before = value(scrape(), DELIVERY_LAG, Map.of("service", "webhook-dispatcher")).orElse(0.0);
            String completed = start("storefront_order", "cus_meters_hook", "MUG", "USD");
            await().atMost(Duration.ofSeconds(60)).until(() -> status(completed).equals("completed"));

            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                String text = scrape();
                assertThat(value(text, DELIVERY_LAG, Map.of("service", "webhook-dispatcher")))
                        .hasValueSatisfying(count -> assertThat(count).isGreaterThanOrEqualTo(before + 1));
                assertThat(value(text, "orderflow_webhook_delivery_lag_seconds_bucket",
                        Map.of("service", "webhook-dispatcher", "le", "+Inf"))).isPresent();
            });
        } finally {
            http.delete().uri("/api/v1/webhook-subscriptions/" + subscription).exchange().expectStatus().isOk();
            receiver.stop(0);
        }
        String text = scrape();
        assertThat(List.of("commerce.charge", "reserve_stock", "commerce.ship")).as("failed executions, by node type")
                .allSatisfy(type -> assertThat(value(text, "orderflow_nodes_executions_total",
                        Map.of("type", type, "result", "failed", "service", "flow-runner"))).isPresent());
        assertThat(value(text, "jvm_memory_used_bytes", Map.of("service", "order-processor"))).isPresent();
        assertThat(value(text, "process_cpu_usage", Map.of("service", "gateway"))).isPresent();
        assertThat(value(text, "http_server_requests_seconds_count", Map.of("service", "gateway",
                "uri", "/api/v1/webhook-subscriptions", "method", "POST", "status", "201"))).isPresent();
    }

    @Test
    void a_refused_mail_is_counted_by_its_smtp_answer_and_a_chat_turn_by_who_answered() throws Exception {
        Map<String, String> unknownMailbox = Map.of("outcome", "refused", "code", "550", "reason", "5.1.1",
                "service", "gateway");
        String before = scrape();
        double refusedBefore = value(before, MAILS, unknownMailbox).orElse(0.0);
        double fallbackBefore = value(before, CHAT, Map.of("outcome", "fallback")).orElse(0.0);
        assertThat(value(before, MAILS, Map.of("outcome", "accepted", "code", "250"))).as("served from the start")
                .isPresent();
        assertThat(value(before, CHAT, Map.of("outcome", "model"))).isPresent();
        assertThat(value(before, CHAT, Map.of("outcome", "error"))).isPresent();

        assertThat(recipientAnswer("nobody@orderflow.example")).startsWith("550 5.1.1");
        String order = start("storefront_order", "cus_meters_chat", "MUG", "USD");
        String base = "http://localhost:" + system.gatewayPort();
        try (OrderSocket page = new OrderSocket(CLIENT, base, order)) {
            page.state(s -> true);
            assertThat(page.call("chat", "{\"text\": \"status?\"}").path("result").path("reply").asString())
                    .startsWith("Order " + order);
        }

        String after = scrape();
        assertThat(value(after, MAILS, unknownMailbox)).hasValue(refusedBefore + 1);
        assertThat(value(after, CHAT, Map.of("outcome", "fallback", "service", "gateway")))
                .as("no model is configured: the heuristic answered").hasValueSatisfying(turns -> assertThat(turns)
                        .isGreaterThanOrEqualTo(fallbackBefore + 1));
    }

    @Test
    void the_system_endpoint_reads_readiness_orders_in_flight_and_lag_from_the_meters() throws Exception {
        String waiting = start("b2b_order", "cus_meters_system", "WIDGET-1", "EUR");
        await().atMost(Duration.ofSeconds(60)).until(() -> status(waiting).equals("waiting"));

        JsonNode first = system();
        assertThat(first.get("status").asString()).isEqualTo("ok");
        assertThat(first.get("services").valueStream().map(s -> s.get("name").asString()).toList())
                .containsExactly("gateway", "flow-runner", "order-processor", "webhook-dispatcher");
        assertThat(first.get("services").valueStream().map(s -> s.get("status").asString()))
                .containsOnly("UP");
        assertThat(first.at("/services/2/parts/streams").asString()).isEqualTo("UP");
        assertThat(first.at("/services/0/parts/kafka").asString()).isEqualTo("UP");
        double started = value(scrape(), "orderflow_orders_started_total",
                Map.of("flow", "b2b_order", "service", "order-processor")).orElseThrow();
        assertThat(first.at("/orders/started").asLong()).isGreaterThanOrEqualTo((long) started);

        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            JsonNode later = system();
            assertThat(later.at("/orders/inFlight/waiting").asLong()).isPositive();
            assertThat(later.at("/orders/startedPerSecond").isNumber()).as("a rate once a second has passed")
                    .isTrue();
            assertThat(later.get("lag").valueStream().map(row -> row.get("group").asString()))
                    .contains("orderflow-order-processor", "orderflow-flow-runner");
            assertThat(later.at("/webhookDeliveries").isObject()).isTrue();
        });
    }

    private static JsonNode system() {
        return Json.MAPPER.readTree(http.get().uri("/api/v1/system").exchange().expectStatus().isOk().expectBody()
                .returnResult().getResponseBody());
    }

    private static String start(String flow, String customer, String sku, String currency) {
        return Json.MAPPER.readTree(http.post().uri("/api/v1/orders").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("flowId", flow, "input", Map.of("type", flow, "customerId", customer,
                        "currency", currency, "lines", List.of(Map.of("sku", sku, "qty", 1, "unitPrice", 9.5)),
                        "meta", Map.of("shipTo", "1 Main Street, Springfield"))))
                .exchange().expectStatus().isCreated().expectBody().returnResult().getResponseBody())
                .get("orderId").asString();
    }

    private static String status(String orderId) {
        return Json.MAPPER.readTree(http.get().uri("/api/v1/orders/" + orderId).exchange().expectStatus().isOk()
                .expectBody().returnResult().getResponseBody()).get("status").asString();
    }

    /** An SMTP conversation up to {@code RCPT TO}; answers the server's reply to it. */
    private static String recipientAnswer(String recipient) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", system.intakePort())) {
            socket.setSoTimeout(10_000);
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.US_ASCII));
            Writer out = new java.io.OutputStreamWriter(socket.getOutputStream(), StandardCharsets.US_ASCII);
            reply(in);
            for (String command : List.of("EHLO meters.test", "MAIL FROM:<someone@example.com>")) {
                out.write(command + "\r\n");
                out.flush();
                reply(in);
            }
            out.write("RCPT TO:<" + recipient + ">\r\n");
            out.flush();
            String answer = reply(in);
            out.write("QUIT\r\n");
            out.flush();
            return answer;
        }
    }

    /** One SMTP reply: its last line (a reply's lines but the last have a '-' after the code). */
    private static String reply(BufferedReader in) throws Exception {
        String line = in.readLine();
        while (line != null && line.length() > 3 && line.charAt(3) == '-') {
            line = in.readLine();
        }
        return line;
    }

    /** The whole scrape (larger than WebTestClient buffers). */
    private static String scrape() throws Exception {
        HttpResponse<String> response = CLIENT.send(HttpRequest.newBuilder(
                URI.create("http://localhost:" + system.gatewayPort() + "/actuator/prometheus")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }
}
