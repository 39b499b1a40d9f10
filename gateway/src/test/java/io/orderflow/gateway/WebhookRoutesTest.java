package io.orderflow.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.gateway.testing.FakeDispatcher;
import io.orderflow.gateway.testing.FakeProcessor.FakeOrder;
import io.orderflow.schemas.commands.CommandEnvelope;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.signing.WebhookSignature;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/** The webhook routes: subscriptions forwarded to the dispatcher, and signed inbound events. */
class WebhookRoutesTest extends GatewayIntegrationTest {

    private String startOrder() {
        return Json.MAPPER.readTree(http.post().uri("/api/v1/orders").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(storefrontOrder()).exchange().expectStatus().isCreated().expectBody().returnResult()
                .getResponseBody()).get("orderId").asString();
    }

    private int commandsFor(String orderId) {
        return (int) PROCESSOR.received().stream().map(CommandEnvelope::command)
                .filter(c -> c.orderId().equals(orderId)).count();
    }

    @Nested
    class Subscriptions {

        private WebTestClient.ResponseSpec create(String body) {
            return http.post().uri("/api/v1/webhook-subscriptions").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(body).exchange();
        }

        @Test
        void a_valid_subscription_is_forwarded_and_the_dispatcher_answer_passed_through() {
            create("{\"url\": \"https://example.com/hook\", \"events\": [\"order.paid\", \"order.shipped\"]}")
                    .expectStatus().isCreated()
                    .expectBody().jsonPath("$.subscription.id").isEqualTo("whs_new")
                    .jsonPath("$.secret").isEqualTo("whsec_1");
            FakeDispatcher.Request forwarded = DISPATCHER.received().getLast();
            assertThat(forwarded.method()).isEqualTo("POST");
            assertThat(forwarded.path()).isEqualTo("/internal/subscriptions");
            assertThat(Json.MAPPER.readTree(forwarded.body())).isEqualTo(Json.MAPPER.readTree(
                    "{\"url\": \"https://example.com/hook\", \"events\": [\"order.paid\", \"order.shipped\"]}"));
        }

        @ParameterizedTest
        @ValueSource(strings = {
                "{}",
                "{\"url\": \"\"}",
                "{\"url\": \"ftp://example.com/hook\"}",
                "{\"url\": \"http://example.com/hook\"}",
                "{\"url\": \"https://example.com/hook\", \"events\": [\"order.paid\", \"order.paid\"]}",
                "{\"url\": 5}",
                "{\"url\": \"https://example.com/hook\", \"events\": []}",
                "{\"url\": \"https://example.com/hook\", \"events\": [\"order.teleported\"]}",
                "{\"url\": \"https://example.com/hook\", \"events\": [\"*\", \"order.paid\"]}",
                "{\"url\": \"https://example.com/hook\", \"events\": \"*\"}",
                "{\"url\": \"https://example.com/hook\", \"secret\": \"mine\"}",
                "[]"})
        void an_invalid_body_is_400_with_issues_and_never_reaches_the_dispatcher(String body) {
            int before = DISPATCHER.received().size();
            create(body).expectStatus().isBadRequest()
                    .expectBody().jsonPath("$.error").isEqualTo("Invalid request body")
                    .jsonPath("$.issues").isNotEmpty();
            assertThat(DISPATCHER.received()).hasSize(before);
        }

        @Test
        void list_delete_and_deliveries_reach_the_dispatcher() {
            http.get().uri("/api/v1/webhook-subscriptions").exchange().expectStatus().isOk()
                    .expectBody().jsonPath("$.subscriptions[0].id").isEqualTo("whs_known")
                    .jsonPath("$.subscriptions[0].secret").doesNotExist();
            http.get().uri("/api/v1/webhook-subscriptions/whs_known/deliveries").exchange().expectStatus().isOk()
                    .expectBody().json("{\"deliveries\": []}", true);
            http.delete().uri("/api/v1/webhook-subscriptions/whs_known").exchange().expectStatus().isOk()
                    .expectBody().json("{\"ok\": true}", true);
            assertThat(DISPATCHER.received().getLast())
                    .isEqualTo(new FakeDispatcher.Request("DELETE", "/internal/subscriptions/whs_known", ""));
            http.delete().uri("/api/v1/webhook-subscriptions/whs_gone").exchange().expectStatus().isNotFound()
                    .expectBody().json("{\"error\": \"Subscription whs_gone not found\"}", true);
            http.get().uri("/api/v1/webhook-subscriptions/whs_gone/deliveries").exchange().expectStatus().isNotFound();
        }
    }

    @Nested
    class SecretRotation {

        @Test
        void a_rotation_is_forwarded_and_the_new_secret_passed_through_once() {
            http.post().uri("/api/v1/webhook-subscriptions/whs_known/rotate-secret").exchange()
                    .expectStatus().isOk()
                    .expectBody().jsonPath("$.subscription.id").isEqualTo("whs_known")
                    .jsonPath("$.secret").isEqualTo("whsec_2");
            assertThat(DISPATCHER.received().getLast()).isEqualTo(
                    new FakeDispatcher.Request("POST", "/internal/subscriptions/whs_known/rotate-secret", ""));
            http.post().uri("/api/v1/webhook-subscriptions/whs_gone/rotate-secret").exchange()
                    .expectStatus().isNotFound()
                    .expectBody().json("{\"error\": \"Subscription whs_gone not found\"}", true);
        }
    }

    @Nested
    class SendingAgain {

        @Test
        void a_redelivery_is_forwarded_and_its_answer_passed_through() {
            http.post().uri("/api/v1/webhook-subscriptions/whs_known/deliveries/dlv_known/redeliver").exchange()
                    .expectStatus().isOk()
                    .expectBody().jsonPath("$.delivery.id").isEqualTo("dlv_known")
                    .jsonPath("$.delivery.attempts").isEqualTo(7);
            assertThat(DISPATCHER.received().getLast()).isEqualTo(new FakeDispatcher.Request("POST",
                    "/internal/subscriptions/whs_known/deliveries/dlv_known/redeliver", ""));
            http.post().uri("/api/v1/webhook-subscriptions/whs_known/deliveries/dlv_gone/redeliver").exchange()
                    .expectStatus().isNotFound()
                    .expectBody().json("{\"error\": \"Delivery dlv_gone not found\"}", true);
            http.post().uri("/api/v1/webhook-subscriptions/whs_gone/deliveries/dlv_known/redeliver").exchange()
                    .expectStatus().isNotFound()
                    .expectBody().json("{\"error\": \"Subscription whs_gone not found\"}", true);
        }

        @Test
        void a_replay_is_checked_forwarded_and_its_rate_limit_passed_through_with_retry_after() {
            http.post().uri("/api/v1/webhook-subscriptions/whs_known/replay").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue("{\"since\": \"2026-11-26T06:00:00Z\"}").exchange()
                    .expectStatus().isOk().expectBody().json("{\"count\": 3}", true);
            assertThat(DISPATCHER.received().getLast()).isEqualTo(new FakeDispatcher.Request("POST",
                    "/internal/subscriptions/whs_known/replay", "{\"since\":\"2026-11-26T06:00:00Z\"}"));
            http.post().uri("/api/v1/webhook-subscriptions/whs_known/replay").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue("{\"since\": \"" + FakeDispatcher.RATE_LIMITED_SINCE + "\"}").exchange()
                    .expectStatus().isEqualTo(429)
                    .expectHeader().valueEquals("Retry-After", "42")
                    .expectBody().jsonPath("$.error").isEqualTo(
                            "A replay of whs_known ran less than 1 min ago; try again in 42 s");
            int before = DISPATCHER.received().size();
            for (String body : new String[] {"{}", "{\"since\": \"yesterday\"}",
                    "{\"since\": \"2026-11-26T06:00:00Z\", \"until\": \"2026-11-26T05:00:00Z\"}",
                    "{\"since\": \"2026-11-26T06:00:00Z\", \"count\": 5}"}) {
                http.post().uri("/api/v1/webhook-subscriptions/whs_known/replay")
                        .contentType(MediaType.APPLICATION_JSON).bodyValue(body).exchange()
                        .expectStatus().isBadRequest()
                        .expectBody().jsonPath("$.error").isEqualTo("Invalid request body")
                        .jsonPath("$.issues").isNotEmpty();
            }
            assertThat(DISPATCHER.received()).hasSize(before);
        }

        @Test
        void a_subscription_is_read_with_its_health() {
            http.get().uri("/api/v1/webhook-subscriptions/whs_known").exchange().expectStatus().isOk()
                    .expectBody().jsonPath("$.subscription.health").isEqualTo("failing");
            http.get().uri("/api/v1/webhook-subscriptions/whs_gone").exchange().expectStatus().isNotFound();
        }
    }

    @Nested
    class SignedEvents {

        private WebTestClient.ResponseSpec send(String body, String signature) {
            WebTestClient.RequestBodySpec request = http.post().uri("/api/v1/webhooks/events")
                    .contentType(MediaType.APPLICATION_JSON);
            if (signature != null) {
                request.header("X-Service-Signature", signature);
            }
            return request.bodyValue(body.getBytes(StandardCharsets.UTF_8)).exchange();
        }

        private static String signed(String body) {
            return WebhookSignature.sign(WEBHOOK_SECRET, Instant.now(), body);
        }

        private String waitingForPayment() {
            String orderId = startOrder();
            PROCESSOR.put(new FakeOrder(orderId, "storefront_order", "fp", "waiting", "payment.received", null, 0));
            return orderId;
        }

        @Test
        void a_correctly_signed_event_reaches_the_waiting_node() {
            String orderId = waitingForPayment();
            String body = "{\"orderId\": \"" + orderId + "\", \"event\": \"payment.received\","
                    + " \"payload\": {\"amount\": 42}}";
            send(body, signed(body)).expectStatus().isOk()
                    .expectBody().json("{\"delivered\": true, \"nodeId\": \"wait_payment\", \"version\": 2}", true);
            OrderCommand.DeliverEvent sent = PROCESSOR.received().stream().map(CommandEnvelope::command)
                    .filter(OrderCommand.DeliverEvent.class::isInstance).map(OrderCommand.DeliverEvent.class::cast)
                    .filter(c -> c.orderId().equals(orderId)).reduce((a, b) -> b).orElseThrow();
            assertThat(sent.event()).isEqualTo("payment.received");
            assertThat(sent.payload().get("amount").asInt()).isEqualTo(42);
        }

        @Test
        void an_event_no_node_waits_for_yet_is_409_delivered_false() {
            String orderId = waitingForPayment();
            String body = "{\"orderId\": \"" + orderId + "\", \"event\": \"return.requested\"}";
            send(body, signed(body)).expectStatus().isEqualTo(409)
                    .expectBody().json("{\"delivered\": false, \"version\": 1}", true);
        }

        @ParameterizedTest
        @ValueSource(strings = {
                "{\"event\": \"payment.received\"}",
                "{\"orderId\": \"ord_abc\"}",
                "{\"orderId\": \"ord_abc\", \"event\": \"payment.received\", \"payload\": [1]}",
                "{\"orderId\": \"ord_abc\", \"event\": \"payment.received\", \"extra\": true}",
                "not json"})
        void a_signed_body_of_the_wrong_shape_is_400(String body) {
            int before = PROCESSOR.received().size();
            send(body, signed(body)).expectStatus().isBadRequest().expectBody().jsonPath("$.error").isNotEmpty();
            assertThat(PROCESSOR.received()).hasSize(before);
        }

        @Test
        void an_unknown_order_is_404() {
            String body = "{\"orderId\": \"not-an-order\", \"event\": \"payment.received\"}";
            send(body, signed(body)).expectStatus().isNotFound();
        }

        @Test
        void missing_malformed_stale_and_wrong_signatures_are_401_and_change_nothing() {
            String orderId = waitingForPayment();
            String body = "{\"orderId\": \"" + orderId + "\", \"event\": \"payment.received\"}";
            String good = signed(body);
            String digest = good.substring(good.indexOf("v1=") + 3);
            long now = Instant.now().getEpochSecond();
            int before = commandsFor(orderId);

            send(body, null).expectStatus().isUnauthorized()
                    .expectBody().json("{\"error\": \"Missing X-Service-Signature header\"}", true);
            send(body, "v1=" + digest).expectStatus().isUnauthorized();
            send(body, "t=" + now + ",v1=nothex").expectStatus().isUnauthorized();
            send(body, good + ",v1=" + digest).expectStatus().isUnauthorized()
                    .expectBody().jsonPath("$.error").value(e -> assertThat((String) e).startsWith("Malformed"));
            send(body, WebhookSignature.sign(WEBHOOK_SECRET, Instant.ofEpochSecond(now - 301), body))
                    .expectStatus().isUnauthorized()
                    .expectBody().jsonPath("$.error").value(e -> assertThat((String) e).contains("5 minutes"));
            send(body, WebhookSignature.sign("another-secret", Instant.now(), body)).expectStatus().isUnauthorized()
                    .expectBody().json("{\"error\": \"Signature does not match the body\"}", true);
            String changedByOneByte = body.replace("payment.received", "payment.receivee");
            send(changedByOneByte, good).expectStatus().isUnauthorized()
                    .expectBody().json("{\"error\": \"Signature does not match the body\"}", true);

            assertThat(commandsFor(orderId)).isEqualTo(before);
        }

        @Test
        void a_signature_299_seconds_old_is_still_accepted() {
            String orderId = waitingForPayment();
            String body = "{\"orderId\": \"" + orderId + "\", \"event\": \"payment.received\"}";
            send(body, WebhookSignature.sign(WEBHOOK_SECRET, Instant.now().minusSeconds(299), body))
                    .expectStatus().isOk().expectBody().jsonPath("$.delivered").isEqualTo(true);
        }
    }
}
