package io.orderflow.dispatcher.dispatch;

import io.orderflow.dispatcher.DispatcherProperties;
import io.orderflow.dispatcher.deliveries.DeliveryStatus;
import io.orderflow.dispatcher.deliveries.DeliveryStore;
import io.orderflow.dispatcher.deliveries.DeliveryTask;
import io.orderflow.dispatcher.subscriptions.Subscription;
import io.orderflow.dispatcher.subscriptions.SubscriptionStore;
import io.orderflow.kafka.tracing.TraceHeaders;
import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.topics.Topics;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns each order event into one delivery per matching subscription and makes its first attempt; a delivery whose
 * first attempt fails goes on to the attempts topic, where its retries run on their own, so an absent subscriber
 * never holds up another one.
 */
@Component
public class EventFanOut {

    private static final Logger log = LoggerFactory.getLogger(EventFanOut.class);

    /** The fan-out's listener id, which spring-kafka makes its consumer group too. */
    static final String GROUP = "webhook-event-fan-out";

    private final SubscriptionStore subscriptions;
    private final DeliveryStore deliveries;
    private final DeliveryAttempts attempts;
    private final SubscriberLanes lanes;
    private final DispatcherProperties properties;

    public EventFanOut(SubscriptionStore subscriptions, DeliveryStore deliveries, DeliveryAttempts attempts,
                       SubscriberLanes lanes, DispatcherProperties properties) {
        this.subscriptions = subscriptions;
        this.deliveries = deliveries;
        this.attempts = attempts;
        this.lanes = lanes;
        this.properties = properties;
    }

    /**
     * Every order makes several events, so the fan-out reads them in batches: a fetch waits up to 100 ms for 64 KB.
     * Fetching (and committing) as soon as one event was there cost the broker about 400 requests a second at 500
     * orders/s, a quarter of all it served; a webhook now leaves up to 100 ms later.
     *
     * <p>The whole poll is fanned out before anything is awaited: its first attempts go out together (each host's
     * requests share its connections), their outcomes' records go to the producer together (one batch per partition,
     * not a broker round trip per event), and the poll's offsets are committed only once the broker has every one of
     * them. A dispatcher that dies before that fans the poll out again when it is back: a receiver may then see a
     * delivery twice, and dedupes on its id as the contract says.
     */
    @KafkaListener(id = GROUP, topics = "#{T(io.orderflow.schemas.topics.Topics).ORDER_EVENTS.name()}",
            batch = "true", properties = {"fetch.min.bytes=65536", "fetch.max.wait.ms=100"})
    public void onEvents(List<ConsumerRecord<String, String>> records) throws Exception {
        // After a restart, wait for the stored subscriptions before deciding who gets these events, and for the
        // delivery records, so that the events of a poll the dispatcher had not committed before it stopped are not
        // sent again where their deliveries were already settled.
        subscriptions.loaded().get(1, TimeUnit.MINUTES);
        deliveries.loaded().get(1, TimeUnit.MINUTES);
        List<Subscription> all = subscriptions.all();
        if (all.isEmpty()) {
            return; // nobody to deliver to, so nothing to read
        }
        List<CompletableFuture<?>> writes = new ArrayList<>();
        for (ConsumerRecord<String, String> record : records) {
            OrderEvent event = parse(record);
            if (event == null) {
                continue;
            }
            String traceparent = traceparent(record);
            long createdAt = createdAt(event.occurredAt(), record);
            try (TraceHeaders.LogContext ignored = TraceHeaders.logContext(event.orderId(), traceparent)) {
                for (Subscription subscription : all) {
                    if (subscription.wants(event.event())) {
                        fanOut(event, subscription, createdAt, traceparent, writes);
                    }
                }
            }
        }
        CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(1, TimeUnit.MINUTES);
    }

    /**
     * When the deliveries of an event were made: the event's time ({@code occurredAt}, when the processor decided it),
     * or its record's when it has none. The same wherever and however often the event is read, so the record of a
     * delivery and its {@code pending} listing before it ({@link UntriedDeliveries}) agree.
     */
    static long createdAt(long occurredAt, ConsumerRecord<?, ?> record) {
        return occurredAt > 0 ? occurredAt : record.timestamp();
    }

    /**
     * The trace context an event's deliveries carry to the subscriber: its record's, as the processor or the runner
     * wrote it; a new one for an event whose record came without.
     */
    static String traceparent(ConsumerRecord<?, ?> record) {
        String traceparent = TraceHeaders.traceparent(record.headers());
        return traceparent != null ? traceparent : TraceHeaders.newTraceparent();
    }

    /**
     * The event, or null for a tombstone or a record that is not an event: nothing can be delivered for it, and
     * failing the poll for it would hold up (and, once retries run out, drop) the good events around it.
     */
    private static OrderEvent parse(ConsumerRecord<String, String> record) {
        if (record.value() == null) {
            return null;
        }
        try {
            return Json.read(record.value(), OrderEvent.class);
        } catch (RuntimeException e) {
            log.error("Skipping order event {} at {}-{}@{}: not an event", record.key(), record.topic(),
                    record.partition(), record.offset(), e);
            return null;
        }
    }

    /**
     * The delivery is listed {@code pending} here from this moment ({@link DeliveryStore#untried}; the other
     * instances list it from their reading of the event, {@link UntriedDeliveries}), so it is there before any
     * request to the subscriber goes out, without a record written for it. A subscriber answering in time gets its
     * first attempt at once ({@link DeliveryAttempts#first}). One known to be slow ({@link SubscriberLanes}) is queued
     * on the slow lane ({@link DeliveryAttempts#queue}) instead, so that it cannot hold up this poll and with it every
     * other subscriber's next deliveries. Either way the event's trace context goes on to the webhook request
     * ({@link TraceHeaders}).
     */
    private void fanOut(OrderEvent event, Subscription subscription, long createdAt, String traceparent,
                        List<CompletableFuture<?>> writes) {
        String deliveryId = DeliveryIds.of(event.orderId(), event.step(), subscription.id());
        if (deliveries.settled(subscription.id(), deliveryId)) {
            log.debug("Delivery {} is already settled; not sending it again", deliveryId);
            return;
        }
        ObjectNode payload = DeliveryPayload.of(event, deliveryId);
        int retries = properties.retriesFor(event.retries());
        DeliveryTask task = new DeliveryTask(deliveryId, subscription.id(), event.event(), event.orderId(), payload,
                retries, createdAt);
        deliveries.created();
        deliveries.untried(subscription.id(), deliveryId, createdAt, traceparent,
                () -> task.record(DeliveryStatus.PENDING, 0, null, null, null));
        writes.add(lanes.isSlow(subscription.id())
                ? attempts.queue(task, DispatcherTopics.SLOW_DELIVERY_ATTEMPTS, traceparent)
                : attempts.first(task, subscription, traceparent));
    }
}
