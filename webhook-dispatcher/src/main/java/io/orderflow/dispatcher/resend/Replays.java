package io.orderflow.dispatcher.resend;

import io.orderflow.dispatcher.DispatcherProperties;
import io.orderflow.dispatcher.deliveries.DeliveryStore;
import io.orderflow.dispatcher.deliveries.DeliveryTask;
import io.orderflow.dispatcher.dispatch.DeliveryAttempts;
import io.orderflow.dispatcher.dispatch.DeliveryIds;
import io.orderflow.dispatcher.dispatch.DeliveryPayload;
import io.orderflow.dispatcher.dispatch.DispatcherTopics;
import io.orderflow.dispatcher.subscriptions.Subscription;
import io.orderflow.dispatcher.subscriptions.SubscriptionStore;
import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.tracing.TraceHeaders;
import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.topics.Topics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Sends a subscription every order event of a window again that its filter matches, read back from
 * {@code order-events} by timestamp ({@code offsetsForTimes}): each becomes its delivery again (the same id, derived
 * from order, step and subscription, so a receiver that dedupes on it takes only what it missed), written as a
 * {@code pending} record and a task on the attempts topic (as the fan-out queues a slow subscriber's deliveries), so
 * it is tried, retried and recorded like any delivery; its record starts over at {@code pending} with {@code attempts}
 * 0, made when the replay was asked for ({@code createdAt}, from which its delivery lag is measured, not from the
 * event's time), and its requests carry a new span in the trace of the event's record ({@code traceparent}). A
 * delivery that is still {@code pending} is left to its own retries and not counted.
 *
 * <p>Bounded: the window is at most {@code replayMaxWindow} long and may hold at most {@code replayMaxEvents} records
 * (counted from the offsets before anything is read, before the filter). Rate-limited per subscription: no replay
 * while one is under way, and the next starts {@code replayInterval} after the last one started. Both limits are
 * kept by this instance (the gateway calls one dispatcher).
 */
@Component
public class Replays {

    private static final Logger log = LoggerFactory.getLogger(Replays.class);

    /**
     * How long reading the window may take before the replay gives up, having sent nothing: well within the 30 s the
     * gateway waits for the answer. {@code replayMaxEvents} records take far less.
     */
    private static final Duration READ_BUDGET = Duration.ofSeconds(20);

    /** What came of a request. */
    public sealed interface Result {
    }

    public record NotFound(String error) implements Result {
    }

    public record Refused(String error) implements Result {
    }

    public record Limited(String error, long retryAfterSeconds) implements Result {
    }

    /** {@code count}: deliveries queued again. */
    public record Done(int count) implements Result {
    }

    private final SubscriptionStore subscriptions;
    private final DeliveryStore deliveries;
    private final DeliveryAttempts attempts;
    private final KafkaSettings kafkaSettings;
    private final DispatcherProperties properties;
    private final Clock clock;
    /** When each subscription's last replay started; {@link Long#MAX_VALUE} while one is under way. */
    private final Map<String, Long> started = new ConcurrentHashMap<>();

    public Replays(SubscriptionStore subscriptions, DeliveryStore deliveries, DeliveryAttempts attempts,
                   KafkaSettings kafkaSettings, DispatcherProperties properties, Clock clock) {
        this.subscriptions = subscriptions;
        this.deliveries = deliveries;
        this.attempts = attempts;
        this.kafkaSettings = kafkaSettings;
        this.properties = properties;
        this.clock = clock;
    }

    /**
     * Replays {@code [since, until)} ({@code until} null: now) to the subscription. Blocks while it reads the window:
     * call it off the event loop.
     */
    public Result replay(String subscriptionId, Instant since, Instant until) {
        Optional<Subscription> subscription = subscriptions.find(subscriptionId);
        if (subscription.isEmpty()) {
            return new NotFound("Subscription " + subscriptionId + " not found");
        }
        Instant end = until == null ? clock.instant() : until;
        if (!since.isBefore(end)) {
            return new Refused("since must come before until");
        }
        if (Duration.between(since, end).compareTo(properties.replayMaxWindow()) > 0) {
            return new Refused("The window is longer than " + describe(properties.replayMaxWindow())
                    + ", the most one replay may cover");
        }
        Limited limited = start(subscriptionId);
        if (limited != null) {
            return limited;
        }
        long startedAt = clock.millis();
        Result result = null;
        try {
            result = replay(subscription.get(), since, end, startedAt);
            return result;
        } finally {
            // Only a replay that sent counts for the interval: one refused or failed does not hold the next back.
            Long last = result instanceof Done ? startedAt : null;
            started.compute(subscriptionId, (id, value) -> last);
        }
    }

    private Limited start(String subscriptionId) {
        long now = clock.millis();
        long interval = properties.replayInterval().toMillis();
        Limited[] refused = {null};
        started.compute(subscriptionId, (id, last) -> {
            if (last != null && last == Long.MAX_VALUE) {
                refused[0] = new Limited("A replay of " + id + " is under way", 1);
                return last;
            }
            if (last != null && now - last < interval) {
                long wait = Math.max(1, TimeUnit.MILLISECONDS.toSeconds(interval - (now - last) + 999));
                refused[0] = new Limited("A replay of " + id + " ran less than " + describe(properties.replayInterval())
                        + " ago; try again in " + wait + " s", wait);
                return last;
            }
            return Long.MAX_VALUE;
        });
        return refused[0];
    }

    /** {@code requestedAt}: when the replay was asked for, the time its deliveries are made at and lag from. */
    private Result replay(Subscription subscription, Instant since, Instant until, long requestedAt) {
        List<ConsumerRecord<String, String>> window = new ArrayList<>();
        Map<String, Object> config = kafkaSettings.clientProperties();
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, "webhook-replay-" + subscription.id());
        try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(Topics.ORDER_EVENTS.name()).stream()
                    .map(info -> new TopicPartition(info.topic(), info.partition()))
                    .toList();
            Map<TopicPartition, Long> from = offsetsAt(consumer, partitions, since);
            Map<TopicPartition, Long> to = offsetsAt(consumer, partitions, until);
            long records = partitions.stream().mapToLong(p -> Math.max(0, to.get(p) - from.get(p))).sum();
            if (records > properties.replayMaxEvents()) {
                return new Refused("The window holds up to " + records + " events, more than the "
                        + properties.replayMaxEvents() + " one replay may read; narrow it");
            }
            consumer.assign(partitions);
            partitions.forEach(p -> consumer.seek(p, from.get(p)));
            long deadline = System.nanoTime() + READ_BUDGET.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < to.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Reading the replay window took longer than " + READ_BUDGET);
                }
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    TopicPartition partition = new TopicPartition(record.topic(), record.partition());
                    if (record.offset() < to.get(partition)) {
                        window.add(record);
                    }
                }
            }
        }
        List<CompletableFuture<?>> writes = new ArrayList<>();
        for (ConsumerRecord<String, String> record : window) {
            OrderEvent event = parse(record);
            if (event == null || record.timestamp() < since.toEpochMilli() || record.timestamp() >= until.toEpochMilli()
                    || !subscription.wants(event.event())) {
                continue;
            }
            String deliveryId = DeliveryIds.of(event.orderId(), event.step(), subscription.id());
            if (deliveries.find(subscription.id(), deliveryId).filter(d -> !d.settled()).isPresent()) {
                continue; // its own retries are under way
            }
            DeliveryTask task = new DeliveryTask(deliveryId, subscription.id(), event.event(), event.orderId(),
                    DeliveryPayload.of(event, deliveryId), properties.retriesFor(event.retries()), requestedAt);
            deliveries.created();
            writes.add(attempts.queue(task, DispatcherTopics.DELIVERY_ATTEMPTS, traceparent(record, deliveryId,
                    subscription.id())));
        }
        CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).join();
        int count = writes.size();
        log.info("Replayed {} deliveries of {} to {} to subscription {}", count, since, until, subscription.id());
        return new Done(count);
    }

    /**
     * A new span ({@link ResendTrace}) in the trace of the event's record; where that has none, in the trace its
     * delivery was last sent in (the dispatcher started one for it); a new trace where neither is known.
     */
    private String traceparent(ConsumerRecord<String, String> record, String deliveryId, String subscriptionId) {
        String known = TraceHeaders.traceparent(record.headers());
        if (known == null) {
            known = deliveries.traceparent(subscriptionId, deliveryId).orElse(null);
        }
        return ResendTrace.newSpanIn(known);
    }

    /**
     * Per partition, the first offset whose record is at or after {@code at}; the end offset (of what is committed)
     * where none is.
     */
    private static Map<TopicPartition, Long> offsetsAt(KafkaConsumer<String, String> consumer,
                                                       List<TopicPartition> partitions, Instant at) {
        Map<TopicPartition, Long> query = new HashMap<>();
        partitions.forEach(p -> query.put(p, at.toEpochMilli()));
        Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query);
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
        Map<TopicPartition, Long> offsets = new HashMap<>();
        for (TopicPartition partition : partitions) {
            OffsetAndTimestamp offset = found.get(partition);
            long end = ends.get(partition);
            offsets.put(partition, offset == null ? end : Math.min(offset.offset(), end));
        }
        return offsets;
    }

    private static OrderEvent parse(ConsumerRecord<String, String> record) {
        if (record.value() == null) {
            return null;
        }
        try {
            return Json.read(record.value(), OrderEvent.class);
        } catch (RuntimeException e) {
            return null; // not an event: the fan-out logged it when it came
        }
    }

    private static String describe(Duration duration) {
        if (duration.toSeconds() % 3600 == 0) {
            return duration.toHours() + " h";
        }
        return duration.toSeconds() % 60 == 0 ? duration.toMinutes() + " min" : duration.toSeconds() + " s";
    }
}
