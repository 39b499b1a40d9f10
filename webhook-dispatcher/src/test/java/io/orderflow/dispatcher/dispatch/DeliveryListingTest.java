package io.orderflow.dispatcher.dispatch;

import static io.orderflow.dispatcher.dispatch.DispatcherHttp.event;
import static io.orderflow.dispatcher.dispatch.DispatcherHttp.newOrderId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.dispatcher.dispatch.TestReceiver.Received;
import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.topics.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

/**
 * What the deliveries listing shows of a delivery's life, on a real broker with receivers on loopback: {@code pending}
 * from the moment its order event is there, then {@code delivered} (or, further on, {@code failed}), whichever
 * dispatcher instance is asked, and again from a replay on. The subscriber holds each request until the test lets it
 * answer, so "before the answer" is a state the test controls, not a race; the answer timeout is the real 10 s.
 */
class DeliveryListingTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    /** Fans the events out and makes the attempts; starts first and stops last. */
    @RegisterExtension
    @Order(1)
    static final DispatcherHttp dispatcher = new DispatcherHttp("--orderflow.dispatcher.backoff-initial=60s");
    /** Another instance that fans nothing out (its listeners do not start): it only answers the API. */
    @RegisterExtension
    @Order(2)
    static final DispatcherHttp listing = new DispatcherHttp("--spring.kafka.listener.auto-startup=false");

    @Test
    void aDeliveryIsListedPendingFromItsEventOnThenDeliveredWithTheSameRecord() throws Exception {
        TestReceiver receiver = dispatcher.receiver(TestReceiver.holding());
        String subscription = dispatcher.subscribe(receiver, null);
        String orderId = newOrderId();
        OrderEvent paid = event("order.paid", orderId, "ord.1:pay:2", null);
        String deliveryId = DeliveryIds.of(orderId, paid.step(), subscription);

        // Given an event that makes a delivery, whose request is with the subscriber, not answered yet,
        dispatcher.publish(paid, null);
        await().atMost(WAIT).until(() -> receiver.received().size() == 1);

        // the instance that sent it lists it pending already (it did so before the request went out), with no
        // attempt made and nothing answered,
        JsonNode pending = dispatcher.delivery(subscription, deliveryId);
        assertThat(pending.get("status").asString()).isEqualTo("pending");
        assertThat(pending.get("attempts").asInt()).isZero();
        assertThat(pending.get("responseStatus").isNull()).isTrue();
        assertThat(pending.get("lastError").isNull()).isTrue();
        assertThat(pending.get("deliveredAt").isNull()).isTrue();
        assertThat(pending.get("event").asString()).isEqualTo("order.paid");
        assertThat(pending.get("orderId").asString()).isEqualTo(orderId);
        assertThat(pending.get("createdAt").asLong()).isEqualTo(paid.occurredAt());
        // and still so while the subscriber holds its answer; looked up by its id, it is pending too.
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).untilAsserted(() ->
                assertThat(dispatcher.delivery(subscription, deliveryId).get("status").asString())
                        .isEqualTo("pending"));
        DispatcherHttp.Answer redeliver = dispatcher.call("POST",
                "/internal/subscriptions/" + subscription + "/deliveries/" + deliveryId + "/redeliver", null);
        assertThat(redeliver.status()).isEqualTo(409);
        assertThat(redeliver.body().get("error").asString())
                .isEqualTo("Delivery " + deliveryId + " is pending: its retries are under way");

        // When the subscriber answers,
        receiver.release();

        // then it is delivered: the same delivery, the same body as was sent and listed, the same creation time.
        await().atMost(WAIT).untilAsserted(() -> {
            JsonNode delivered = dispatcher.delivery(subscription, deliveryId);
            assertThat(delivered.get("status").asString()).isEqualTo("delivered");
            assertThat(delivered.get("attempts").asInt()).isEqualTo(1);
            assertThat(delivered.get("responseStatus").asInt()).isEqualTo(200);
        });
        JsonNode delivered = dispatcher.delivery(subscription, deliveryId);
        Received request = receiver.received().getFirst();
        assertThat(pending.get("payload")).isEqualTo(request.body());
        assertThat(delivered.get("payload")).isEqualTo(request.body());
        assertThat(delivered.get("createdAt").asLong()).isEqualTo(pending.get("createdAt").asLong());
        assertThat(dispatcher.deliveries(subscription)).hasSize(1);
        // Its pending listing cost no record: the delivery is one record, delivered, and no task on the attempts
        // topics.
        assertThat(DispatcherHttp.recordsKeyed(Topics.WEBHOOK_DELIVERIES.name(), deliveryId)).isEqualTo(1);
        assertThat(DispatcherHttp.recordsKeyed(DispatcherTopics.DELIVERY_ATTEMPTS, deliveryId)).isZero();
    }

    @Test
    void anInstanceThatDoesNotFanOutListsTheDeliveryPendingToo() throws Exception {
        TestReceiver receiver = dispatcher.receiver(TestReceiver.holding());
        String subscription = dispatcher.subscribe(receiver, List.of("order.completed"));
        await().atMost(WAIT).until(() -> listing.call("GET", "/internal/subscriptions/" + subscription, null)
                .status() == 200);
        String orderId = newOrderId();
        OrderEvent completed = event("order.completed", orderId, "ord.1:end:7", null);
        String deliveryId = DeliveryIds.of(orderId, completed.step(), subscription);

        dispatcher.publish(completed, null);
        dispatcher.publish(event("order.paid", orderId, "ord.1:pay:2", null), null); // not asked for

        // The instance the gateway asks need not be the one whose fan-out has the event's partition.
        await().atMost(WAIT).untilAsserted(() -> {
            JsonNode pending = listing.delivery(subscription, deliveryId);
            assertThat(pending.get("status").asString()).isEqualTo("pending");
            assertThat(pending.get("attempts").asInt()).isZero();
        });
        await().atMost(WAIT).until(() -> receiver.received().size() == 1);
        receiver.release();
        await().atMost(WAIT).untilAsserted(() -> {
            JsonNode delivered = listing.delivery(subscription, deliveryId);
            assertThat(delivered.get("status").asString()).isEqualTo("delivered");
            assertThat(delivered.get("attempts").asInt()).isEqualTo(1);
        });
        assertThat(listing.deliveries(subscription)).hasSize(1);
    }

    @Test
    void aReplayedDeliveryIsListedPendingAgainFromTheReplayOn() throws Exception {
        TestReceiver receiver = dispatcher.receiver(TestReceiver.answering());
        String subscription = dispatcher.subscribe(receiver, List.of("order.shipped"));
        await().atMost(WAIT).until(() -> listing.call("GET", "/internal/subscriptions/" + subscription, null)
                .status() == 200);
        String orderId = newOrderId();
        long now = System.currentTimeMillis();
        OrderEvent shipped = event("order.shipped", orderId, "ord.1:ship:3", null);
        String deliveryId = DeliveryIds.of(orderId, shipped.step(), subscription);
        dispatcher.publish(shipped, now);
        await().atMost(WAIT).until(() -> dispatcher.delivery(subscription, deliveryId).get("status").asString()
                .equals("delivered"));

        // Given a delivered delivery whose subscriber holds its next answer, when its event is replayed,
        receiver.hold();
        long askedAt = System.currentTimeMillis();
        DispatcherHttp.Answer replayed = dispatcher.call("POST", "/internal/subscriptions/" + subscription + "/replay",
                "{\"since\": \"" + Instant.ofEpochMilli(now) + "\"}");
        long answeredAt = System.currentTimeMillis();
        assertThat(replayed.status()).as(replayed.body().toString()).isEqualTo(200);
        assertThat(replayed.body().get("count").asInt()).isEqualTo(1);

        // then both instances list it pending again: no attempt yet, made at the replay,
        for (DispatcherHttp instance : List.of(dispatcher, listing)) {
            await().atMost(WAIT).untilAsserted(() -> {
                JsonNode pending = instance.delivery(subscription, deliveryId);
                assertThat(pending.get("status").asString()).isEqualTo("pending");
                assertThat(pending.get("attempts").asInt()).isZero();
                assertThat(pending.get("createdAt").asLong()).isBetween(askedAt, answeredAt);
            });
        }
        // still so while its request is with the subscriber,
        await().atMost(WAIT).until(() -> receiver.received().size() == 2);
        assertThat(dispatcher.delivery(subscription, deliveryId).get("status").asString()).isEqualTo("pending");

        // and once the subscriber answers, delivered with that attempt.
        receiver.release();
        await().atMost(WAIT).untilAsserted(() -> {
            JsonNode delivered = listing.delivery(subscription, deliveryId);
            assertThat(delivered.get("status").asString()).isEqualTo("delivered");
            assertThat(delivered.get("attempts").asInt()).isEqualTo(1);
            assertThat(delivered.get("createdAt").asLong()).isBetween(askedAt, answeredAt);
        });
        assertThat(receiver.received()).extracting(Received::deliveryId).containsOnly(deliveryId);
        // Its first delivery was one record, delivered; the replay wrote its pending record and a task for the
        // attempts topic, then its delivered record.
        assertThat(DispatcherHttp.recordsKeyed(Topics.WEBHOOK_DELIVERIES.name(), deliveryId)).isEqualTo(3);
        assertThat(DispatcherHttp.recordsKeyed(DispatcherTopics.DELIVERY_ATTEMPTS, deliveryId)).isEqualTo(1);
    }

    @Test
    void aDeliveryWhoseFirstAttemptFailsStaysPendingWithItThenFails() throws Exception {
        TestReceiver receiver = dispatcher.receiver(TestReceiver.failing(Integer.MAX_VALUE, 503));
        String subscription = dispatcher.subscribe(receiver, null);
        String orderId = newOrderId();
        // an event that allows no retry: its first failed attempt is its last
        OrderEvent refunded = event("order.refunded", orderId, "ord.1:refund:4", 0);
        String deliveryId = DeliveryIds.of(orderId, refunded.step(), subscription);

        dispatcher.publish(refunded, null);

        await().atMost(WAIT).untilAsserted(() -> {
            JsonNode failed = listing.delivery(subscription, deliveryId);
            assertThat(failed.get("status").asString()).isEqualTo("failed");
            assertThat(failed.get("attempts").asInt()).isEqualTo(1);
            assertThat(failed.get("responseStatus").asInt()).isEqualTo(503);
            assertThat(failed.get("lastError").asString()).isEqualTo("HTTP 503");
            assertThat(failed.get("createdAt").asLong()).isEqualTo(refunded.occurredAt());
        });
        // Nothing is left listed pending behind it, on either instance.
        assertThat(dispatcher.deliveries(subscription)).hasSize(1)
                .allSatisfy(d -> assertThat(d.get("status").asString()).isEqualTo("failed"));
        assertThat(listing.deliveries(subscription)).hasSize(1);
        assertThat(receiver.received()).hasSize(1);
    }
}
