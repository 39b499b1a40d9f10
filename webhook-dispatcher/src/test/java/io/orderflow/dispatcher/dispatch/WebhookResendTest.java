package io.orderflow.dispatcher.dispatch;

import static io.orderflow.dispatcher.dispatch.DispatcherHttp.event;
import static io.orderflow.dispatcher.dispatch.DispatcherHttp.newOrderId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.orderflow.dispatcher.dispatch.DispatcherHttp.Answer;
import io.orderflow.dispatcher.dispatch.TestReceiver.Received;
import io.orderflow.dispatcher.deliveries.SubscriptionHealth;
import io.orderflow.schemas.events.OrderEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * Sending deliveries again and the health of subscriptions, on a real broker with real receivers on loopback.
 * Retries wait a minute here, so none comes during a test: what a receiver gets is the first attempts, and what a
 * redelivery or a replay sends. A subscription is failing after 3 failed deliveries.
 */
class WebhookResendTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String LAG_COUNT = "orderflow_webhook_delivery_lag_seconds_count";
    private static final String LAG_SUM = "orderflow_webhook_delivery_lag_seconds_sum";
    private static final String ORDER_TRACE = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    /** Version 00, lower-case hex, neither the trace id nor the parent id all zeros. */
    private static final String WELL_FORMED = "00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-0[01]";


    @RegisterExtension
    static final DispatcherHttp dispatcher = new DispatcherHttp(
            "--orderflow.dispatcher.backoff-initial=60s",
            "--orderflow.dispatcher.request-timeout=3s",
            "--orderflow.dispatcher.failing-after=3");

    // ---------------------------------------------------------------- redelivery

    @Test
    void aFailedDeliveryIsRedeliveredWithTheSameIdAsANewAttempt() throws Exception {
        TestReceiver receiver = dispatcher.receiver(TestReceiver.failing(2, 500));
        String subscription = dispatcher.subscribe(receiver, null);
        // Given a delivery that failed: its event allows no retry, and the receiver answered 500.
        OrderEvent paid = event("order.paid", newOrderId(), "ord.1:pay:2", 0);
        dispatcher.publish(paid, null);
        String deliveryId = DeliveryIds.of(paid.orderId(), paid.step(), subscription);
        String redeliver = "/internal/subscriptions/" + subscription + "/deliveries/" + deliveryId + "/redeliver";
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(dispatcher.delivery(subscription, deliveryId).get("status").asString()).isEqualTo("failed"));

        // When an operator redelivers it while the receiver still fails, the record shows a second failed attempt;
        Answer failedAgain = dispatcher.call("POST", redeliver, null);
        assertThat(failedAgain.status()).as(failedAgain.body().toString()).isEqualTo(200);
        JsonNode second = failedAgain.body().get("delivery");
        assertThat(second.get("status").asString()).isEqualTo("failed");
        assertThat(second.get("attempts").asInt()).isEqualTo(2);
        assertThat(second.get("responseStatus").asInt()).isEqualTo(500);
        assertThat(second.get("lastError").asString()).isEqualTo("HTTP 500");
        assertThat(second.get("deliveredAt").isNull()).isTrue();

        // and once it answers, the third attempt is delivered.
        Answer answer = dispatcher.call("POST", redeliver, null);
        assertThat(answer.status()).as(answer.body().toString()).isEqualTo(200);
        JsonNode delivery = answer.body().get("delivery");
        assertThat(delivery.get("id").asString()).isEqualTo(deliveryId);
        assertThat(delivery.get("status").asString()).isEqualTo("delivered");
        assertThat(delivery.get("attempts").asInt()).isEqualTo(3);
        assertThat(delivery.get("responseStatus").asInt()).isEqualTo(200);
        assertThat(delivery.get("lastError").isNull()).isTrue();
        assertThat(delivery.get("deliveredAt").asLong()).isPositive();
        // The receiver got the same delivery each time: same id, same body, signed.
        List<Received> received = receiver.received();
        assertThat(received).hasSize(3).allMatch(Received::signatureValid);
        assertThat(received).extracting(Received::deliveryId).containsOnly(deliveryId);
        assertThat(received).extracting(Received::rawBody)
                .allSatisfy(body -> assertThat(body).isEqualTo(received.getFirst().rawBody()));
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            JsonNode listed = dispatcher.delivery(subscription, deliveryId);
            assertThat(listed.get("status").asString()).isEqualTo("delivered");
            assertThat(listed.get("attempts").asInt()).isEqualTo(3);
        });

        // A delivered one may be sent again too: one more attempt.
        Answer again = dispatcher.call("POST", redeliver, null);
        assertThat(again.body().get("delivery").get("attempts").asInt()).isEqualTo(4);
        assertThat(receiver.received()).hasSize(4);
    }

    @Test
    void redeliveryAnswers404ForAnUnknownSubscriptionOrDeliveryAnd409WhileRetriesAreUnderWay() throws Exception {
        TestReceiver receiver = dispatcher.receiver(TestReceiver.failing(Integer.MAX_VALUE, 503));
        String subscription = dispatcher.subscribe(receiver, null);
        OrderEvent shipped = event("order.shipped", newOrderId(), "ord.1:ship:3", null);
        dispatcher.publish(shipped, null);
        String deliveryId = DeliveryIds.of(shipped.orderId(), shipped.step(), subscription);
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(dispatcher.delivery(subscription, deliveryId).get("attempts").asInt()).isEqualTo(1));

        Answer pending = dispatcher.call("POST",
                "/internal/subscriptions/" + subscription + "/deliveries/" + deliveryId + "/redeliver", null);
        assertThat(pending.status()).isEqualTo(409);
        assertThat(pending.body().get("error").asString())
                .isEqualTo("Delivery " + deliveryId + " is pending: its retries are under way");

        Answer unknownDelivery = dispatcher.call("POST",
                "/internal/subscriptions/" + subscription + "/deliveries/dlv_unknown/redeliver", null);
        assertThat(unknownDelivery.status()).isEqualTo(404);
        assertThat(unknownDelivery.body().get("error").asString()).isEqualTo("Delivery dlv_unknown not found");
        Answer unknownSubscription = dispatcher.call("POST",
                "/internal/subscriptions/whs_unknown/deliveries/" + deliveryId + "/redeliver", null);
        assertThat(unknownSubscription.status()).isEqualTo(404);
        assertThat(unknownSubscription.body().get("error").asString()).isEqualTo("Subscription whs_unknown not found");
        assertThat(receiver.received()).hasSize(1);
    }

    // ---------------------------------------------------------------- replay

    @Test
    void aReplaySendsAgainTheEventsOfTheWindowThatTheFilterMatches() throws Exception {
        TestReceiver receiver = dispatcher.receiver(TestReceiver.answering());
        String subscription = dispatcher.subscribe(receiver, List.of("order.paid", "order.shipped"));
        String orderId = newOrderId();
        // Stamped around now, after whatever the topic holds already: before, in and after the window [t+1s, t+2s).
        long t = System.currentTimeMillis();
        OrderEvent before = event("order.paid", orderId, "ord.1:pay:1", null);
        OrderEvent paid = event("order.paid", orderId, "ord.1:pay:2", null);
        OrderEvent completed = event("order.completed", orderId, "ord.1:end:3", null);
        OrderEvent shipped = event("order.shipped", orderId, "ord.1:ship:4", null);
        OrderEvent after = event("order.shipped", orderId, "ord.1:ship:5", null);
        dispatcher.publish(before, t);
        dispatcher.publish(paid, t + 1000);
        dispatcher.publish(completed, t + 1200);
        dispatcher.publish(shipped, t + 1400);
        dispatcher.publish(after, t + 2000);
        // Given each matching event was delivered as it came (the completed one is not asked for),
        await().atMost(WAIT).until(() -> dispatcher.deliveries(subscription).size() == 4 && dispatcher
                .deliveries(subscription).stream().allMatch(d -> d.get("status").asString().equals("delivered")));
        assertThat(receiver.received()).hasSize(4);

        // when the window is replayed,
        Answer answer = dispatcher.call("POST", "/internal/subscriptions/" + subscription + "/replay",
                "{\"since\": \"%s\", \"until\": \"%s\"}".formatted(Instant.ofEpochMilli(t + 1000),
                        Instant.ofEpochMilli(t + 2000)));

        // then the two events in it that the filter matches are delivered again, with their ids, and nothing else.
        assertThat(answer.status()).as(answer.body().toString()).isEqualTo(200);
        assertThat(answer.body().get("count").asInt()).isEqualTo(2);
        await().atMost(WAIT).until(() -> receiver.received().size() == 6);
        assertThat(receiver.received().subList(4, 6)).extracting(Received::deliveryId).containsExactlyInAnyOrder(
                DeliveryIds.of(orderId, paid.step(), subscription),
                DeliveryIds.of(orderId, shipped.step(), subscription));
        assertThat(receiver.received()).allMatch(Received::signatureValid);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> receiver.received().size() == 6);
    }

    @Test
    void aReplayIsRateLimitedBoundedAndChecked() throws Exception {
        TestReceiver receiver = dispatcher.receiver(TestReceiver.answering());
        String subscription = dispatcher.subscribe(receiver, null);
        String path = "/internal/subscriptions/" + subscription + "/replay";
        String lastMinute = "{\"since\": \"" + Instant.now().minusSeconds(60) + "\"}";

        assertThat(dispatcher.call("POST", path, lastMinute).status()).isEqualTo(200);
        Answer second = dispatcher.call("POST", path, lastMinute);
        assertThat(second.status()).isEqualTo(429);
        assertThat(second.body().get("error").asString())
                .matches("A replay of " + subscription + " ran less than 1 min ago; try again in \\d+ s");
        assertThat(Integer.parseInt(second.retryAfter())).isBetween(1, 60);

        TestReceiver other = dispatcher.receiver(TestReceiver.answering());
        String otherPath = "/internal/subscriptions/" + dispatcher.subscribe(other, null) + "/replay";
        Answer tooLong = dispatcher.call("POST", otherPath,
                "{\"since\": \"" + Instant.now().minus(Duration.ofHours(25)) + "\"}");
        assertThat(tooLong.status()).isEqualTo(400);
        assertThat(tooLong.body().get("error").asString())
                .isEqualTo("The window is longer than 24 h, the most one replay may cover");
        Answer noSince = dispatcher.call("POST", otherPath, "{\"until\": \"2026-11-26T06:00:00Z\"}");
        assertThat(noSince.status()).isEqualTo(400);
        assertThat(noSince.body().get("error").asString()).isEqualTo("Invalid request body");
        assertThat(noSince.body().get("issues")).isNotEmpty();
        Answer notAnInstant = dispatcher.call("POST", otherPath, "{\"since\": \"yesterday\"}");
        assertThat(notAnInstant.status()).isEqualTo(400);
        assertThat(notAnInstant.body().get("issues").get(0).get("path").asString()).isEqualTo("/since");
        // Refused requests did not count: the other subscription may still replay.
        assertThat(dispatcher.call("POST", otherPath, lastMinute).status()).isEqualTo(200);

        Answer unknown = dispatcher.call("POST", "/internal/subscriptions/whs_unknown/replay", lastMinute);
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.body().get("error").asString()).isEqualTo("Subscription whs_unknown not found");
    }

    // ---------------------------------------------------------------- trace context and lag of what is sent again

    @Test
    void aReplayAndARedeliveryAreNewSpansOfTheOrdersTraceAndTheirLagRunsFromTheRequest() throws Exception {
        TestReceiver receiver = dispatcher.receiver(TestReceiver.answering());
        String subscription = dispatcher.subscribe(receiver, List.of("order.paid", "order.shipped"));
        String orderId = newOrderId();
        long now = System.currentTimeMillis();
        long twoHoursAgo = now - Duration.ofHours(2).toMillis();
        // Given two events of an order, both from two hours ago and written now, one with the order's trace context
        // (as the processor writes every event) and one without,
        OrderEvent paid = new OrderEvent("order.paid", orderId, "ord.1:pay:2", twoHoursAgo, null, null);
        OrderEvent shipped = new OrderEvent("order.shipped", orderId, "ord.1:ship:3", twoHoursAgo, null, null);
        double count = dispatcher.meter(LAG_COUNT);
        double sum = dispatcher.meter(LAG_SUM);
        dispatcher.publish(paid, now, ORDER_TRACE);
        dispatcher.publish(shipped, now, null);

        // their first deliveries carry the order's trace context, and a new one where the event had none; each
        // waited two hours for its event, which the delivery lag shows.
        await().atMost(WAIT).until(() -> allDelivered(subscription, 2));
        assertThat(sentFor(receiver, "order.paid").getFirst().traceparent()).isEqualTo(ORDER_TRACE);
        String shippedTrace = sentFor(receiver, "order.shipped").getFirst().traceparent();
        assertThat(shippedTrace).matches(WELL_FORMED);
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(dispatcher.meter(LAG_COUNT) - count).isEqualTo(2);
            assertThat(dispatcher.meter(LAG_SUM) - sum).isGreaterThan(2 * 7190);
        });

        // When the window is replayed,
        double countBeforeReplay = dispatcher.meter(LAG_COUNT);
        double sumBeforeReplay = dispatcher.meter(LAG_SUM);
        long replayAskedAt = System.currentTimeMillis();
        Answer replayed = dispatcher.call("POST", "/internal/subscriptions/" + subscription + "/replay",
                "{\"since\": \"" + Instant.ofEpochMilli(now) + "\"}");
        long replayAnsweredAt = System.currentTimeMillis();
        assertThat(replayed.status()).as(replayed.body().toString()).isEqualTo(200);
        assertThat(replayed.body().get("count").asInt()).isEqualTo(2);

        // then each is sent again as a new span of the trace it was first sent in (the order's where its event
        // carried it), made at the replay and lagging from it, not from the event two hours ago.
        await().atMost(WAIT).until(() -> receiver.received().size() == 4 && allDelivered(subscription, 2));
        String paidReplayed = sentFor(receiver, "order.paid").getLast().traceparent();
        String shippedReplayed = sentFor(receiver, "order.shipped").getLast().traceparent();
        assertNewSpanIn(paidReplayed, ORDER_TRACE);
        assertNewSpanIn(shippedReplayed, shippedTrace);
        assertThat(dispatcher.deliveries(subscription)).allSatisfy(d ->
                assertThat(d.get("createdAt").asLong()).isBetween(replayAskedAt, replayAnsweredAt));
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(dispatcher.meter(LAG_COUNT) - countBeforeReplay).isEqualTo(2));
        assertThat(dispatcher.meter(LAG_SUM) - sumBeforeReplay).isLessThan(60);

        // A redelivery likewise: a new span of the trace, the lag from the request.
        double countBeforeRedelivery = dispatcher.meter(LAG_COUNT);
        double sumBeforeRedelivery = dispatcher.meter(LAG_SUM);
        for (OrderEvent event : List.of(paid, shipped)) {
            String deliveryId = DeliveryIds.of(orderId, event.step(), subscription);
            Answer redelivered = dispatcher.call("POST",
                    "/internal/subscriptions/" + subscription + "/deliveries/" + deliveryId + "/redeliver", null);
            assertThat(redelivered.status()).as(redelivered.body().toString()).isEqualTo(200);
            assertThat(redelivered.body().get("delivery").get("status").asString()).isEqualTo("delivered");
        }
        assertThat(receiver.received()).hasSize(6).allMatch(Received::signatureValid);
        String paidRedelivered = sentFor(receiver, "order.paid").getLast().traceparent();
        assertNewSpanIn(paidRedelivered, ORDER_TRACE);
        assertThat(spanId(paidRedelivered)).isNotEqualTo(spanId(paidReplayed));
        String shippedRedelivered = sentFor(receiver, "order.shipped").getLast().traceparent();
        assertNewSpanIn(shippedRedelivered, shippedTrace);
        assertThat(spanId(shippedRedelivered)).isNotEqualTo(spanId(shippedReplayed));
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(dispatcher.meter(LAG_COUNT) - countBeforeRedelivery).isEqualTo(2));
        assertThat(dispatcher.meter(LAG_SUM) - sumBeforeRedelivery).isLessThan(60);
    }

    /** {@code sent} is a well-formed W3C trace context in the trace of {@code original}, with a span of its own. */
    private static void assertNewSpanIn(String sent, String original) {
        assertThat(sent).matches(WELL_FORMED);
        assertThat(traceId(sent)).as("trace id of " + sent).isEqualTo(traceId(original));
        assertThat(spanId(sent)).as("parent id of " + sent).isNotEqualTo(spanId(original));
        assertThat(sent.substring(53)).as("flags of " + sent).isEqualTo(original.substring(53));
    }

    private static String traceId(String traceparent) {
        return traceparent.substring(3, 35);
    }

    private static String spanId(String traceparent) {
        return traceparent.substring(36, 52);
    }

    private static boolean allDelivered(String subscription, int deliveries) throws Exception {
        List<JsonNode> listed = dispatcher.deliveries(subscription);
        return listed.size() == deliveries
                && listed.stream().allMatch(d -> d.get("status").asString().equals("delivered"));
    }

    /** The requests the receiver got for the deliveries of {@code event}, in the order they came. */
    private static List<Received> sentFor(TestReceiver receiver, String event) {
        return receiver.received().stream().filter(r -> r.event().equals(event)).toList();
    }

    // ---------------------------------------------------------------- health

    @Test
    void aSubscriptionIsFailingAfterThreeFailedDeliveriesAndOkAfterASuccess() throws Exception {
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        Logger healthLog = (Logger) LoggerFactory.getLogger(SubscriptionHealth.class);
        healthLog.addAppender(logs);
        try {
            TestReceiver receiver = dispatcher.receiver(TestReceiver.failing(3, 500));
            String subscription = dispatcher.subscribe(receiver, null);
            assertThat(dispatcher.listed(subscription).get("health").asString()).isEqualTo("ok");
            assertThat(dispatcher.listed(subscription).get("lastSuccessAt").isNull()).isTrue();

            // Two failed deliveries: still ok.
            String orderId = newOrderId();
            dispatcher.publish(event("order.paid", orderId, "ord.1:pay:1", null), null);
            dispatcher.publish(event("order.invoiced", orderId, "ord.1:invoice:2", null), null);
            await().atMost(WAIT).until(() -> receiver.received().size() == 2);
            await().atMost(WAIT).until(() -> dispatcher.deliveries(subscription).stream()
                    .filter(d -> d.get("attempts").asInt() == 1).count() == 2);
            assertThat(dispatcher.listed(subscription).get("health").asString()).isEqualTo("ok");

            // The third: failing, in the list, the read, the gauge and the log.
            dispatcher.publish(event("order.shipped", orderId, "ord.1:ship:3", null), null);
            await().atMost(WAIT).untilAsserted(() ->
                    assertThat(dispatcher.listed(subscription).get("health").asString()).isEqualTo("failing"));
            JsonNode read = dispatcher.call("GET", "/internal/subscriptions/" + subscription, null).body();
            assertThat(read.get("subscription").get("health").asString()).isEqualTo("failing");
            assertThat(dispatcher.text("/actuator/prometheus"))
                    .containsPattern("(?m)^orderflow_webhook_subscriptions_failing\\{[^}]*} 1\\.0$");
            assertThat(logs.list).extracting(ILoggingEvent::getFormattedMessage).anyMatch(line -> line.startsWith(
                    "Webhook subscription " + subscription + " is failing: its last 3 deliveries failed"));

            // One delivered: ok again, with when.
            long beforeSuccess = System.currentTimeMillis();
            dispatcher.publish(event("order.completed", orderId, "ord.1:end:4", null), null);
            await().atMost(WAIT).untilAsserted(() -> {
                JsonNode listed = dispatcher.listed(subscription);
                assertThat(listed.get("health").asString()).isEqualTo("ok");
                assertThat(listed.get("lastSuccessAt").asLong()).isGreaterThanOrEqualTo(beforeSuccess);
            });
            assertThat(dispatcher.text("/actuator/prometheus"))
                    .containsPattern("(?m)^orderflow_webhook_subscriptions_failing\\{[^}]*} 0\\.0$");
            assertThat(logs.list).extracting(ILoggingEvent::getFormattedMessage)
                    .anyMatch(line -> line.startsWith("Webhook subscription " + subscription + " recovered"));
        } finally {
            healthLog.detachAppender(logs);
        }
        Answer unknown = dispatcher.call("GET", "/internal/subscriptions/whs_unknown", null);
        assertThat(unknown.status()).isEqualTo(404);
    }
}
