package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.signing.WebhookSignature;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * Webhooks as a new user meets them on the standalone system: subscribe a local receiver, run an order, see signed
 * deliveries arrive and listed; and send a signed inbound event to an order waiting for a payment.
 */
@ExtendWith(SharedStandalone.class)
class WebhooksEndToEndTest {

    private static final String INBOUND_SECRET = SharedStandalone.WEBHOOK_SECRET;
    private static final Duration WAIT = Duration.ofSeconds(30);

    /** A delivery as the receiver got it, with the signature checked the way the spec's "Verifying" says. */
    record Received(Map<String, String> headers, byte[] body, boolean signatureValid) {

        JsonNode json() {
            return Json.MAPPER.readTree(body);
        }
    }

    private static WebTestClient http;
    private static HttpServer receiver;
    private static final List<Received> received = new CopyOnWriteArrayList<>();
    private static volatile String receiverSecret;

    @BeforeAll
    static void start(StandaloneSystem system) throws IOException {
        http = SharedStandalone.client(system);
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hook", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String signature = exchange.getRequestHeaders().getFirst("x-service-signature");
            boolean valid = WebhookSignature.verify(receiverSecret, signature, body, Instant.now()).valid();
            received.add(new Received(Map.of(
                    "content-type", exchange.getRequestHeaders().getFirst("content-type"),
                    "x-service-event", exchange.getRequestHeaders().getFirst("x-service-event"),
                    "x-service-delivery", exchange.getRequestHeaders().getFirst("x-service-delivery")),
                    body, valid));
            exchange.sendResponseHeaders(valid ? 204 : 401, -1);
            exchange.close();
        });
        receiver.start();
    }

    @AfterAll
    static void stop() {
        if (receiver != null) {
            receiver.stop(0);
        }
    }

    @Test
    void a_subscribed_receiver_gets_signed_deliveries_that_are_listed_as_delivered() {
        JsonNode created = post("/api/v1/webhook-subscriptions", Map.of(
                "url", "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook",
                "events", List.of("order.paid", "order.completed")), 201);
        receiverSecret = created.get("secret").asString();
        String subscriptionId = created.get("subscription").get("id").asString();
        assertThat(Json.write(get("/api/v1/webhook-subscriptions"))).doesNotContain(receiverSecret);

        String orderId = post("/api/v1/orders", Map.of("flowId", "storefront_order", "input", Map.of(
                "type", "storefront_order", "customerId", "cus_hooks", "currency", "USD",
                "lines", List.of(Map.of("sku", "MUG-BLUE", "qty", 1, "unitPrice", 12.5)),
                "meta", Map.of("shipTo", "1 Main Street, Springfield"))), 201).get("orderId").asString();

        await().atMost(WAIT).until(() -> deliveriesFor(orderId).size() == 2);
        List<Received> mine = deliveriesFor(orderId);
        assertThat(mine).extracting(r -> r.headers().get("x-service-event"))
                .containsExactlyInAnyOrder("order.paid", "order.completed");
        for (Received delivery : mine) {
            JsonNode body = delivery.json();
            assertThat(delivery.signatureValid()).isTrue();
            assertThat(delivery.headers().get("content-type")).startsWith("application/json");
            assertThat(body.get("id").asString()).isEqualTo(delivery.headers().get("x-service-delivery"));
            assertThat(body.get("event").asString()).isEqualTo(delivery.headers().get("x-service-event"));
            assertThat(body.get("occurredAt").isNumber()).isTrue();
            assertThat(body.get("data").get("order").get("id").asString()).isEqualTo(orderId);
            assertThat(body.get("data").get("order").get("total").asDouble()).isPositive();
        }
        JsonNode completed = mine.stream().filter(r -> r.headers().get("x-service-event").equals("order.completed"))
                .findFirst().orElseThrow().json();
        assertThat(completed.get("data").get("outcome").asString()).isEqualTo("completed");
        JsonNode paid = mine.stream().filter(r -> r.headers().get("x-service-event").equals("order.paid"))
                .findFirst().orElseThrow().json();
        assertThat(paid.get("data").get("node").get("type").asString()).isEqualTo("commerce.charge");

        await().atMost(WAIT).untilAsserted(() -> {
            JsonNode deliveries = get("/api/v1/webhook-subscriptions/" + subscriptionId + "/deliveries")
                    .get("deliveries");
            List<JsonNode> forOrder = deliveries.valueStream()
                    .filter(d -> d.get("orderId").asString().equals(orderId)).toList();
            assertThat(forOrder).hasSize(2).allSatisfy(d -> {
                assertThat(d.get("status").asString()).isEqualTo("delivered");
                assertThat(d.get("attempts").asInt()).isEqualTo(1);
                assertThat(d.get("responseStatus").asInt()).isEqualTo(204);
            });
        });

        http.delete().uri("/api/v1/webhook-subscriptions/" + subscriptionId).exchange().expectStatus().isOk();
        assertThat(get("/api/v1/webhook-subscriptions").get("subscriptions").valueStream()
                .map(s -> s.get("id").asString())).doesNotContain(subscriptionId);
    }

    @Test
    void a_signed_inbound_payment_moves_a_waiting_b2b_order_on() {
        String orderId = post("/api/v1/orders", Map.of("flowId", "b2b_order", "input", Map.of(
                "type", "b2b_order", "customerId", "cus_b2b_hooks", "currency", "EUR",
                "lines", List.of(Map.of("sku", "WIDGET-1", "qty", 10, "unitPrice", 20)),
                "meta", Map.of("shipTo", "5 Harbour Road, Dublin"))), 201).get("orderId").asString();

        String early = Json.write(Map.of("orderId", orderId, "event", "shipment.lost"));
        signed(early).expectStatus().isEqualTo(409).expectBody().json("{\"delivered\": false}")
                .jsonPath("$.version").isNumber();

        await().atMost(WAIT).untilAsserted(() -> assertThat(get("/api/v1/orders/" + orderId).get("waits")
                .valueStream().map(w -> w.get("event").asString())).contains("payment.received"));

        String payment = Json.write(Map.of("orderId", orderId, "event", "payment.received",
                "payload", Map.of("source", "bank", "reference", "TX-991")));
        http.post().uri("/api/v1/webhooks/events").contentType(MediaType.APPLICATION_JSON)
                .header("X-Service-Signature", WebhookSignature.sign("not-the-secret", Instant.now(), payment))
                .bodyValue(payment).exchange().expectStatus().isUnauthorized();
        signed(payment).expectStatus().isOk()
                .expectBody().json("{\"delivered\": true, \"nodeId\": \"await_payment\"}")
                .jsonPath("$.version").isNumber();

        await().atMost(WAIT).untilAsserted(() -> {
            JsonNode order = get("/api/v1/orders/" + orderId);
            assertThat(order.get("status").asString()).isEqualTo("completed");
            assertThat(order.get("vars").get("payment_received").get("reference").asString()).isEqualTo("TX-991");
            assertThat(order.get("vars").get("payment_received").get("event").asString())
                    .isEqualTo("payment.received");
        });
    }

    private static List<Received> deliveriesFor(String orderId) {
        return received.stream().filter(r -> r.json().get("orderId").asString().equals(orderId)).toList();
    }

    private static WebTestClient.ResponseSpec signed(String body) {
        return http.post().uri("/api/v1/webhooks/events").contentType(MediaType.APPLICATION_JSON)
                .header("X-Service-Signature", WebhookSignature.sign(INBOUND_SECRET, Instant.now(), body))
                .bodyValue(body).exchange();
    }

    private static JsonNode post(String path, Object body, int status) {
        return Json.MAPPER.readTree(http.post().uri(path).contentType(MediaType.APPLICATION_JSON).bodyValue(body)
                .exchange().expectStatus().isEqualTo(status).expectBody().returnResult().getResponseBody());
    }

    private static JsonNode get(String path) {
        return Json.MAPPER.readTree(http.get().uri(path).exchange().expectStatus().isOk()
                .expectBody().returnResult().getResponseBody());
    }
}
