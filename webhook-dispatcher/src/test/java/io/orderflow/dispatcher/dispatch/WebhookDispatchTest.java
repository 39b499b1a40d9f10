package io.orderflow.dispatcher.dispatch;

import static io.orderflow.dispatcher.dispatch.DispatcherHttp.newOrderId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.stripe.exception.SignatureVerificationException;
import com.stripe.net.Webhook;
import io.orderflow.dispatcher.dispatch.TestReceiver.Received;
import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.signing.WebhookSignature;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.support.KafkaHeaders;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The dispatcher on a real broker, delivering to real HTTP receivers on loopback. Retry delays are shortened to
 * 200 ms, 400 ms, 800 ms, 1.6 s, 3.2 s, the answer timeout to 3 s and the secret rotation's grace to 5 s; everything
 * else runs as configured.
 */
class WebhookDispatchTest {

    private static final Duration BACKOFF = Duration.ofMillis(200);
    private static final Duration WAIT = Duration.ofSeconds(45);
    private static final Duration ROTATION_GRACE = Duration.ofSeconds(5);
    /** How old a signature's {@code t} stripe-java accepts: the contract's 5 minutes. */
    private static final long STRIPE_TOLERANCE_SECONDS = 300;

    @RegisterExtension
    static final DispatcherHttp dispatcher = new DispatcherHttp(
            "--orderflow.dispatcher.backoff-initial=" + BACKOFF.toMillis() + "ms",
            "--orderflow.dispatcher.request-timeout=3s",
            "--orderflow.dispatcher.rotation-grace=" + ROTATION_GRACE.toMillis() + "ms");

    // ---------------------------------------------------------------- delivery request

    @Test
    void deliversEachDataShapeSignedWithTheSpecHeadersAndBody() throws Exception {
        TestReceiver receiver = dispatcher.receiver(TestReceiver.answering());
        String subscription = subscribe(receiver, null);
        String orderId = newOrderId();
        List<OrderEvent> events = List.of(
                event("order.paid", orderId, "ord.1:capture:4", Json.MAPPER.readTree("""
                        {"order": %s, "node": {"id": "capture", "type": "commerce.capture_payment",
                         "output": {"authorizationId": "auth_1", "amount": 118.8}}}""".formatted(summary(orderId)))),
                event("order.completed", orderId, "ord.1:end:9", Json.MAPPER.readTree("""
                        {"order": %s, "outcome": "completed", "reason": "All done"}""".formatted(summary(orderId)))),
                event("order.failed", orderId, "ord.1:ship:7", Json.MAPPER.readTree("""
                        {"order": %s, "outcome": "failed", "reason": "Carrier rejected the parcel",
                         "node": {"id": "ship", "type": "commerce.ship", "error": "Carrier rejected the parcel"}}"""
                        .formatted(summary(orderId)))),
                event("order.cancelled", orderId, "cancel", Json.MAPPER.readTree("""
                        {"order": %s, "outcome": "cancelled", "reason": "Customer asked"}""".formatted(summary(orderId)))));
        events.forEach(WebhookDispatchTest::publish);

        await().atMost(WAIT).until(() -> receiver.received().size() == 4);

        List<Received> received = receiver.received();
        for (int i = 0; i < events.size(); i++) {
            OrderEvent sent = events.get(i);
            Received delivery = received.stream()
                    .filter(r -> r.event().equals(sent.event())).findFirst().orElseThrow();
            String expectedId = DeliveryIds.of(orderId, sent.step(), subscription);
            assertThat(delivery.signatureValid()).as("signature of %s", sent.event()).isTrue();
            assertThat(delivery.signature()).matches("t=\\d+,v1=[0-9a-f]{64}");
            assertThat(delivery.contentType()).isEqualTo("application/json");
            assertThat(delivery.deliveryId()).isEqualTo(expectedId);
            ObjectNode expectedBody = Json.object();
            expectedBody.put("id", expectedId);
            expectedBody.put("event", sent.event());
            expectedBody.put("occurredAt", sent.occurredAt());
            expectedBody.put("orderId", orderId);
            expectedBody.set("data", sent.data());
            assertThat(delivery.body()).isEqualTo(expectedBody);
        }

        await().atMost(WAIT).until(() -> deliveries(subscription).size() == 4
                && deliveries(subscription).stream().allMatch(d -> d.get("status").asString().equals("delivered")));
        List<JsonNode> listed = deliveries(subscription);
        JsonNode first = listed.getFirst();
        assertThat(fieldNames(first)).containsExactlyInAnyOrder("id", "event", "orderId", "payload", "status",
                "attempts", "responseStatus", "lastError", "createdAt", "deliveredAt");
        assertThat(first.get("attempts").asInt()).isEqualTo(1);
        assertThat(first.get("responseStatus").asInt()).isEqualTo(200);
        assertThat(first.get("lastError").isNull()).isTrue();
        assertThat(first.get("deliveredAt").asLong()).isGreaterThanOrEqualTo(first.get("createdAt").asLong());
        assertThat(first.get("payload")).isEqualTo(received.stream()
                .filter(r -> r.deliveryId().equals(first.get("id").asString())).findFirst().orElseThrow().body());
        assertThat(listed).extracting(d -> d.get("createdAt").asLong())
                .isSortedAccordingTo((a, b) -> Long.compare(b, a));
    }

    // ---------------------------------------------------------------- retries

    @Test
    void retriesOnTheScheduleWithTheSameDeliveryIdUntilDelivered() throws Exception {
        TestReceiver receiver = dispatcher.receiver(TestReceiver.failing(3, 500));
        String subscription = subscribe(receiver, null);
        String orderId = newOrderId();
        publish(event("order.shipped", orderId, "ord.1:ship:5", nodeData(orderId, "ship", "commerce.ship")));

        await().atMost(WAIT).until(() -> receiver.received().size() == 4);

        List<Received> attempts = receiver.received();
        assertThat(attempts).extracting(Received::deliveryId).containsOnly(attempts.getFirst().deliveryId());
        assertThat(attempts).extracting(Received::rawBody)
                .allSatisfy(body -> assertThat(body).isEqualTo(attempts.getFirst().rawBody()));
        assertThat(attempts).allMatch(Received::signatureValid);
        assertSpacedPerSchedule(attempts);
        await().atMost(WAIT).untilAsserted(() -> {
            JsonNode delivery = dispatcher.firstDelivery(subscription);
            assertThat(delivery.get("status").asString()).isEqualTo("delivered");
            assertThat(delivery.get("attempts").asInt()).isEqualTo(4);
            assertThat(delivery.get("responseStatus").asInt()).isEqualTo(200);
            assertThat(delivery.get("lastError").isNull()).isTrue();
        });
        assertThat(receiver.received()).hasSize(4);
    }

    @Test
    void marksTheDeliveryFailedAfterTheFifthRetry() throws Exception {
        TestReceiver receiver = dispatcher.receiver(TestReceiver.failing(Integer.MAX_VALUE, 503));
        String subscription = subscribe(receiver, List.of("order.refunded"));
        String orderId = newOrderId();
        publish(event("order.refunded", orderId, "ord.1:refund:3", nodeData(orderId, "refund", "commerce.refund")));

        // While it retries, the record shows the attempts so far and why the last one failed.
        await().atMost(WAIT).untilAsserted(() -> {
            JsonNode delivery = dispatcher.firstDelivery(subscription);
            assertThat(delivery.get("status").asString()).isEqualTo("pending");
            assertThat(delivery.get("attempts").asInt()).isGreaterThanOrEqualTo(3);
            assertThat(delivery.get("responseStatus").asInt()).isEqualTo(503);
            assertThat(delivery.get("lastError").asString()).isEqualTo("HTTP 503");
        });
        await().atMost(WAIT).until(() -> receiver.received().size() == 6);
        await().atMost(WAIT).untilAsserted(() -> {
            JsonNode delivery = dispatcher.firstDelivery(subscription);
            assertThat(delivery.get("status").asString()).isEqualTo("failed");
            assertThat(delivery.get("attempts").asInt()).isEqualTo(6);
            assertThat(delivery.get("responseStatus").asInt()).isEqualTo(503);
            assertThat(delivery.get("lastError").asString()).isEqualTo("HTTP 503");
            assertThat(delivery.get("deliveredAt").isNull()).isTrue();
        });
        List<Received> attempts = receiver.received();
        assertThat(attempts).extracting(Received::deliveryId).containsOnly(attempts.getFirst().deliveryId());
        assertSpacedPerSchedule(attempts);
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4))
                .until(() -> receiver.received().size() == 6);

        // each record handed to a retry topic, and the dead letter, carries the last outcome once and no stack trace
        List<ConsumerRecord<String, String>> handedOver = DispatcherHttp.readKeyed(
                DispatcherTopics.DELIVERY_ATTEMPTS + "-", attempts.getFirst().deliveryId());
        assertThat(handedOver).hasSize(6).allSatisfy(record -> {
            assertThat(record.headers().headers(RetryTopics.LAST_ERROR_HEADER)).singleElement()
                    .extracting(header -> new String(header.value(), StandardCharsets.UTF_8)).isEqualTo("HTTP 503");
            assertThat(record.headers().headers(RetryTopics.RESPONSE_STATUS_HEADER)).hasSize(1);
            assertThat(record.headers().lastHeader(KafkaHeaders.EXCEPTION_STACKTRACE)).isNull();
        });
    }

    @Test
    void anEventsOwnRetryCountCapsItsRetries() throws Exception {
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
        root.addAppender(logs);
        try {
            TestReceiver receiver = dispatcher.receiver(TestReceiver.failing(Integer.MAX_VALUE, 500));
            String subscription = subscribe(receiver, null);
            String orderId = newOrderId();
            publish(new OrderEvent("order.cancelled", orderId, "cancel", System.currentTimeMillis(),
                    Json.MAPPER.readTree("{\"order\": %s, \"outcome\": \"cancelled\", \"reason\": \"test\"}"
                            .formatted(summary(orderId))), 1));

            await().atMost(WAIT).untilAsserted(() -> {
                JsonNode delivery = dispatcher.firstDelivery(subscription);
                assertThat(delivery.get("status").asString()).isEqualTo("failed");
                assertThat(delivery.get("attempts").asInt()).isEqualTo(2);
            });
            assertThat(receiver.received()).hasSize(2);
        } finally {
            root.detachAppender(logs);
        }
        // A subscriber that fails is expected: each failed attempt is one WARN line, no ERROR, no stack trace.
        List<ILoggingEvent> events = List.copyOf(logs.list);
        assertThat(events).filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.ERROR)).isEmpty();
        assertThat(events).filteredOn(e -> e.getThrowableProxy() != null).isEmpty();
        assertThat(events).filteredOn(e -> e.getLevel() == Level.WARN
                        && e.getFormattedMessage().matches("Delivery dlv_\\w+ attempt \\d failed: HTTP 500"))
                .hasSize(2);
    }

    @Test
    void aSubscriberThatNeverAnswersDoesNotCostOthersATimeoutPerDelivery() throws Exception {
        TestReceiver silent = dispatcher.receiver(TestReceiver.neverAnswering());
        TestReceiver healthy = dispatcher.receiver(TestReceiver.answering());
        String silentSubscription = subscribe(silent, null);
        String healthySubscription = subscribe(healthy, null);
        for (int i = 0; i < 6; i++) {
            String orderId = newOrderId();
            publish(event("order.completed", orderId, "end", endData(orderId)));
        }
        Instant published = Instant.now();

        // The requests of one poll go out together, so waiting for the silent subscriber (3 s here) holds the
        // healthy one up by at most one answer timeout per poll, never by one per silent delivery (6 x 3 s).
        await().atMost(WAIT).until(() -> healthy.received().size() == 6);
        assertThat(Duration.between(published, healthy.received().getLast().at())).isLessThan(Duration.ofSeconds(18));
        await().atMost(WAIT).untilAsserted(() -> assertThat(deliveries(healthySubscription))
                .hasSize(6)
                .allSatisfy(d -> {
                    assertThat(d.get("status").asString()).isEqualTo("delivered");
                    assertThat(d.get("attempts").asInt()).isEqualTo(1);
                }));
        await().atMost(WAIT).untilAsserted(() -> assertThat(deliveries(silentSubscription))
                .hasSize(6)
                .extracting(d -> d.get("lastError").asString()).containsOnly("No response within 3 s"));
    }

    @Test
    void aSlowAndASilentSubscriberDoNotHoldUpAHealthyOnesDeliveries() throws Exception {
        TestReceiver slow = dispatcher.receiver(TestReceiver.answeringAfter(Duration.ofSeconds(2)));
        TestReceiver silent = dispatcher.receiver(TestReceiver.neverAnswering());
        TestReceiver healthy = dispatcher.receiver(TestReceiver.answering());
        String slowSubscription = subscribe(slow, null);
        String silentSubscription = subscribe(silent, null);
        subscribe(healthy, null);

        // Given each has shown what it is: the slow one answered after 2 s, the silent one not within 3 s.
        publish(event("order.completed", newOrderId(), "end", null));
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(dispatcher.firstDelivery(slowSubscription).get("status").asString()).isEqualTo("delivered");
            assertThat(dispatcher.firstDelivery(silentSubscription).get("lastError").asString())
                    .isEqualTo("No response within 3 s");
        });

        // When events keep coming, one poll after another, while both hold requests open,
        // then each reaches the healthy subscriber without waiting for the others' answers (up to 3 s).
        for (int wave = 2; wave <= 6; wave++) {
            int expected = wave;
            publish(event("order.completed", newOrderId(), "end", null));
            await().atMost(Duration.ofMillis(1500)).until(() -> healthy.received().size() == expected);
        }
        assertThat(healthy.received()).extracting(Received::deliveryId).doesNotHaveDuplicates();
        // The slow lane still serves the other two: each of their six deliveries reaches them.
        await().atMost(WAIT).until(() -> distinctDeliveries(slow) == 6 && distinctDeliveries(silent) == 6);
    }

    // ---------------------------------------------------------------- secret rotation

    /**
     * Our signature header is Stripe's: {@code t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>}, with
     * one {@code v1} per secret while a secret is rotated. So besides our own verifier, stripe-java's
     * ({@code Webhook.Signature.verifyHeader}, and {@code Webhook.constructEvent}, which parses the body) takes the
     * deliveries, handed the {@code x-service-signature} header where Stripe sends {@code Stripe-Signature}: before,
     * during and after the rotation's grace period.
     */
    @Test
    void aRotatedSecretSignsNextToTheOldOneForTheGracePeriodThenAloneAsStripesVerifierSeesToo() throws Exception {
        TestReceiver receiver = dispatcher.receiver(TestReceiver.answering());
        JsonNode created = call("POST", "/internal/subscriptions", "{\"url\": \"" + receiver.url() + "\"}", 201);
        String subscription = created.get("subscription").get("id").asString();
        String oldSecret = created.get("secret").asString();
        receiver.verifyWith(oldSecret);

        // Before any rotation: one v1, which Stripe's verifier and its event parser take as it came.
        publish(event("order.paid", newOrderId(), "ord.1:pay:1", null));
        await().atMost(WAIT).until(() -> receiver.received().size() == 1);
        Received before = receiver.received().getFirst();
        assertThat(before.signature()).matches("t=\\d+,v1=[0-9a-f]{64}");
        assertThat(before.signatureValid()).isTrue();
        assertThat(stripeAccepts(before, oldSecret)).isTrue();
        assertThat(Webhook.constructEvent(body(before), before.signature(), oldSecret, STRIPE_TOLERANCE_SECONDS)
                .getId()).isEqualTo(before.deliveryId());

        JsonNode rotated = call("POST", "/internal/subscriptions/" + subscription + "/rotate-secret", null, 200);
        Instant rotatedBy = Instant.now();
        String newSecret = rotated.get("secret").asString();
        assertThat(fieldNames(rotated)).containsExactlyInAnyOrder("subscription", "secret");
        assertThat(rotated.get("subscription").get("id").asString()).isEqualTo(subscription);
        assertThat(newSecret).startsWith("whsec_").hasSize(6 + 64).isNotEqualTo(oldSecret);
        assertThat(call("GET", "/internal/subscriptions", null, 200).toString())
                .doesNotContain(newSecret).doesNotContain(oldSecret);
        receiver.verifyWith(newSecret);

        // Within the grace period: one v1 with the new secret, then one with the old, over the same t; Stripe's
        // verifier takes either secret, and no other.
        publish(event("order.paid", newOrderId(), "ord.1:pay:2", null));
        await().atMost(WAIT).until(() -> receiver.received().size() == 2);
        Received during = receiver.received().getLast();
        assertThat(during.at()).isBefore(rotatedBy.plus(ROTATION_GRACE));
        List<String> signatures = TestReceiver.singleSignatures(during.signature());
        assertThat(during.signature()).matches("t=\\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}");
        assertThat(WebhookSignature.verify(newSecret, signatures.get(0), during.rawBody(), Instant.now()).valid())
                .isTrue();
        assertThat(WebhookSignature.verify(oldSecret, signatures.get(1), during.rawBody(), Instant.now()).valid())
                .isTrue();
        assertThat(stripeAccepts(during, newSecret)).isTrue();
        assertThat(stripeAccepts(during, oldSecret)).isTrue();
        assertThat(stripeAccepts(during, "whsec_" + "0".repeat(64))).isFalse();

        // After it: the new secret alone.
        await().atMost(ROTATION_GRACE.plusSeconds(2))
                .until(() -> Instant.now().isAfter(rotatedBy.plus(ROTATION_GRACE)));
        publish(event("order.shipped", newOrderId(), "ord.1:ship:3", null));
        await().atMost(WAIT).until(() -> receiver.received().size() == 3);
        Received after = receiver.received().getLast();
        assertThat(after.signature()).matches("t=\\d+,v1=[0-9a-f]{64}");
        assertThat(WebhookSignature.verify(newSecret, after.signature(), after.rawBody(), Instant.now()).valid())
                .isTrue();
        assertThat(stripeAccepts(after, newSecret)).isTrue();
        assertThat(stripeAccepts(after, oldSecret)).isFalse();
        assertThatThrownBy(() -> Webhook.constructEvent(body(after), after.signature(), oldSecret,
                STRIPE_TOLERANCE_SECONDS)).isInstanceOf(SignatureVerificationException.class);

        assertThat(call("POST", "/internal/subscriptions/whs_unknown/rotate-secret", null, 404).get("error")
                .asString()).isEqualTo("Subscription whs_unknown not found");
    }

    /** Stripe's check: a {@code v1} matching HMAC-SHA256 of {@code t.payload} with the secret, {@code t} recent. */
    private static boolean stripeAccepts(Received delivery, String secret) {
        try {
            return Webhook.Signature.verifyHeader(body(delivery), delivery.signature(), secret,
                    STRIPE_TOLERANCE_SECONDS);
        } catch (SignatureVerificationException e) {
            return false;
        }
    }

    private static String body(Received delivery) {
        return new String(delivery.rawBody(), StandardCharsets.UTF_8);
    }

    // ---------------------------------------------------------------- matching, dedupe, deletion

    @Test
    void deliversOnlyTheEventsASubscriptionAskedFor() throws Exception {
        TestReceiver shippedOnly = dispatcher.receiver(TestReceiver.answering());
        TestReceiver everything = dispatcher.receiver(TestReceiver.answering());
        String shippedSubscription = subscribe(shippedOnly, List.of("order.shipped"));
        subscribe(everything, List.of("*"));
        String orderId = newOrderId();
        publish(event("order.paid", orderId, "ord.1:pay:2", nodeData(orderId, "pay", "commerce.charge")));
        publish(event("order.cancelled", orderId, "cancel", endData(orderId)));
        publish(event("order.shipped", orderId, "ord.1:ship:3", nodeData(orderId, "ship", "commerce.ship")));

        // One order's events are fanned out in order: once the last is through, so are the others.
        await().atMost(WAIT).until(() -> everything.received().size() == 3 && shippedOnly.received().size() == 1);
        assertThat(shippedOnly.received()).extracting(Received::event).containsExactly("order.shipped");
        await().atMost(WAIT).until(() -> deliveries(shippedSubscription).size() == 1);
    }

    @Test
    void aReplayedEventIsNotDeliveredAgainOnceSettled() throws Exception {
        TestReceiver receiver = dispatcher.receiver(TestReceiver.answering());
        String subscription = subscribe(receiver, null);
        String orderId = newOrderId();
        OrderEvent paid = event("order.paid", orderId, "ord.1:pay:2", nodeData(orderId, "pay", "commerce.charge"));
        publish(paid);
        await().atMost(WAIT).until(() -> !deliveries(subscription).isEmpty()
                && deliveries(subscription).getFirst().get("status").asString().equals("delivered"));

        publish(paid);
        publish(event("order.shipped", orderId, "ord.1:ship:3", nodeData(orderId, "ship", "commerce.ship")));

        await().atMost(WAIT).until(() -> receiver.received().stream().anyMatch(r -> r.event().equals("order.shipped")));
        assertThat(receiver.received()).extracting(Received::event).containsExactly("order.paid", "order.shipped");
    }

    @Test
    void aDeletedSubscriptionGetsNothingMore() throws Exception {
        TestReceiver deleted = dispatcher.receiver(TestReceiver.answering());
        TestReceiver control = dispatcher.receiver(TestReceiver.answering());
        String subscription = subscribe(deleted, null);
        subscribe(control, null);
        String orderId = newOrderId();
        publish(event("order.paid", orderId, "ord.1:pay:2", nodeData(orderId, "pay", "commerce.charge")));
        await().atMost(WAIT).until(() -> deleted.received().size() == 1);

        JsonNode answer = call("DELETE", "/internal/subscriptions/" + subscription, null, 200);
        assertThat(answer).isEqualTo(Json.MAPPER.readTree("{\"ok\": true}"));
        assertThat(call("GET", "/internal/subscriptions", null, 200).get("subscriptions"))
                .extracting(s -> s.get("id").asString()).doesNotContain(subscription);
        publish(event("order.shipped", orderId, "ord.1:ship:3", nodeData(orderId, "ship", "commerce.ship")));

        await().atMost(WAIT).until(() -> control.received().size() == 2);
        assertThat(deleted.received()).hasSize(1);
        assertThat(call("DELETE", "/internal/subscriptions/" + subscription, null, 404).get("error").asString())
                .isEqualTo("Subscription " + subscription + " not found");
        call("GET", "/internal/subscriptions/" + subscription + "/deliveries", null, 404);
    }

    @Test
    void deletingASubscriptionStopsItsRetries() throws Exception {
        TestReceiver receiver = dispatcher.receiver(TestReceiver.failing(Integer.MAX_VALUE, 500));
        String subscription = subscribe(receiver, null);
        publish(event("order.paid", newOrderId(), "ord.1:pay:2", null));
        await().atMost(WAIT).until(() -> receiver.received().size() >= 2);

        call("DELETE", "/internal/subscriptions/" + subscription, null, 200);
        int afterDelete = receiver.received().size();

        // At most the attempt already under way when the delete landed; the retries due later (0.4 s, 0.8 s, 1.6 s
        // after the last ones) never come.
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4))
                .until(() -> receiver.received().size() <= afterDelete + 1);
    }

    // ---------------------------------------------------------------- the internal API

    @Test
    void createsASubscriptionWithASecretShownOnlyOnce() throws Exception {
        JsonNode created = call("POST", "/internal/subscriptions",
                "{\"url\": \"https://hooks.example.com/orders\", \"events\": [\"order.paid\", \"order.shipped\"]}",
                201);
        JsonNode subscription = created.get("subscription");
        assertThat(fieldNames(created)).containsExactlyInAnyOrder("subscription", "secret");
        assertThat(fieldNames(subscription)).containsExactlyInAnyOrder("id", "url", "events", "createdAt");
        assertThat(subscription.get("url").asString()).isEqualTo("https://hooks.example.com/orders");
        assertThat(subscription.get("events")).isEqualTo(Json.MAPPER.readTree("[\"order.paid\", \"order.shipped\"]"));
        assertThat(created.get("secret").asString()).startsWith("whsec_").hasSize(6 + 64);

        String listed = dispatcher.text("/internal/subscriptions");
        assertThat(listed).contains(subscription.get("id").asString()).doesNotContain("secret")
                .doesNotContain(created.get("secret").asString());
        assertThat(call("GET", "/internal/subscriptions/" + subscription.get("id").asString() + "/deliveries",
                null, 200)).isEqualTo(Json.MAPPER.readTree("{\"deliveries\": []}"));

        JsonNode other = call("POST", "/internal/subscriptions", "{\"url\": \"http://localhost:9/x\"}", 201);
        assertThat(other.get("subscription").get("events")).isEqualTo(Json.MAPPER.readTree("[\"*\"]"));
        assertThat(other.get("secret").asString()).isNotEqualTo(created.get("secret").asString());
        call("POST", "/internal/subscriptions", "{\"url\": \"http://[::1]:8080/x\"}", 201);
        call("POST", "/internal/subscriptions", "{\"url\": \"http://127.0.0.1/x\", \"events\": [\"*\"]}", 201);
    }

    /**
     * A client that keeps its connection alive and sends each request as soon as the last is answered: a
     * subscription created and deleted (answered once the subscriptions topic has it back, off the server's event
     * loop), each followed at once by the list (answered on the event loop). Reactor Netty 1.3.7 stopped reading such
     * a connection when a request came in before the previous exchange had fully ended: the request after it was
     * never answered (reactor/reactor-netty#4361, fixed in 1.3.8).
     */
    @Test
    void answersEveryRequestOfAKeepAliveClientThatSendsAtOnce() throws Exception {
        for (int round = 0; round < 150; round++) {
            String id = call("POST", "/internal/subscriptions", "{\"url\": \"http://127.0.0.1:9/hook\"}", 201)
                    .get("subscription").get("id").asString();
            assertThat(call("GET", "/internal/subscriptions", null, 200).get("subscriptions"))
                    .extracting(s -> s.get("id").asString()).contains(id);
            call("DELETE", "/internal/subscriptions/" + id, null, 200);
            assertThat(call("GET", "/internal/subscriptions", null, 200).get("subscriptions"))
                    .extracting(s -> s.get("id").asString()).doesNotContain(id);
        }
    }

    @Test
    void rejectsBadSubscriptionRequests() throws Exception {
        assertThat(call("POST", "/internal/subscriptions", "{\"url\": \"http://example.com/hook\"}", 400)
                .get("issues").get(0).get("path").asString()).isEqualTo("/url");
        for (String body : List.of(
                "{\"url\": \"not a url\"}",
                "{\"url\": \"https://\"}",
                "{\"url\": \"ftp://example.com/x\"}",
                "{\"url\": \"/relative\"}",
                "{\"url\": 42}",
                "{}",
                "{\"url\": \"https://example.com\", \"events\": [\"order.bogus\"]}",
                "{\"url\": \"https://example.com\", \"events\": []}",
                "{\"url\": \"https://example.com\", \"events\": \"order.paid\"}",
                "{\"url\": \"https://example.com\", \"events\": [\"*\", \"order.paid\"]}")) {
            JsonNode answer = call("POST", "/internal/subscriptions", body, 400);
            assertThat(answer.get("error").asString()).as(body).isEqualTo("Invalid request body");
            assertThat(answer.get("issues")).as(body).isNotEmpty();
        }
        assertThat(call("POST", "/internal/subscriptions", "{not json", 400).get("error").asString())
                .isEqualTo("Request body is not valid JSON");
        call("POST", "/internal/subscriptions", "[]", 400);
        assertThat(call("DELETE", "/internal/subscriptions/whs_unknown", null, 404).get("error").asString())
                .isEqualTo("Subscription whs_unknown not found");
    }

    // ---------------------------------------------------------------- helpers

    /**
     * Attempt k+1 follows attempt k after the k-th delay (200 ms doubling), never sooner, and at most 2 s later: a
     * retry topic's consumer resumes its paused partition once the record is due and fetches it again (and the first
     * retry also waits for the failed first attempt's hand-over from the fan-out to the attempts topic), which on
     * the busy machine of a full build has taken up to 1.5 s.
     */
    private static void assertSpacedPerSchedule(List<Received> attempts) {
        for (int k = 1; k < attempts.size(); k++) {
            long gap = Duration.between(attempts.get(k - 1).at(), attempts.get(k).at()).toMillis();
            long delay = BACKOFF.toMillis() << (k - 1);
            assertThat(gap).as("gap before attempt %d", k + 1).isBetween(delay - 50, delay + 2000);
        }
    }

    private static long distinctDeliveries(TestReceiver receiver) {
        return receiver.received().stream().map(Received::deliveryId).distinct().count();
    }

    private static String subscribe(TestReceiver receiver, List<String> events) throws Exception {
        return dispatcher.subscribe(receiver, events);
    }

    private static List<JsonNode> deliveries(String subscription) throws Exception {
        return dispatcher.deliveries(subscription);
    }

    private static JsonNode call(String method, String path, String body, int expectedStatus) throws Exception {
        DispatcherHttp.Answer answer = dispatcher.call(method, path, body);
        assertThat(answer.status()).as("%s %s %s -> %s", method, path, body, answer.body())
                .isEqualTo(expectedStatus);
        return answer.body();
    }

    private static void publish(OrderEvent event) {
        dispatcher.publish(event);
    }

    private static OrderEvent event(String name, String orderId, String step, JsonNode data) {
        return new OrderEvent(name, orderId, step, System.currentTimeMillis(), data, null);
    }

    private static String summary(String orderId) {
        return """
                {"id": "%s", "type": "storefront_order", "title": "Storefront order · cus_1", "customerId": "cus_1",
                 "currency": "EUR", "subtotal": 100, "tax": 18.8, "total": 118.8, "fxRate": 0.92, "baseTotal": 129.13}"""
                .formatted(orderId);
    }

    private static JsonNode nodeData(String orderId, String nodeId, String type) {
        return Json.MAPPER.readTree("{\"order\": %s, \"node\": {\"id\": \"%s\", \"type\": \"%s\", \"output\": {}}}"
                .formatted(summary(orderId), nodeId, type));
    }

    private static JsonNode endData(String orderId) {
        return Json.MAPPER.readTree("{\"order\": %s, \"outcome\": \"completed\", \"reason\": null}"
                .formatted(summary(orderId)));
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.propertyNames().forEach(names::add);
        return names;
    }
}
