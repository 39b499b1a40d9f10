package io.orderflow.dispatcher.deliveries;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.CompactedTopicView;
import io.orderflow.kafka.tracing.TraceHeaders;
import org.apache.kafka.common.serialization.StringDeserializer;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.topics.Topics;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.stereotype.Component;

/**
 * The delivery records: every status change is written to the compacted {@code webhook-deliveries} topic and read
 * back into memory, grouped by subscription. Only the most recent {@link #KEPT_PER_SUBSCRIPTION} records per
 * subscription stay in memory; the API lists at most {@link #LISTED}.
 *
 * <p>A delivery exists from the moment its order event is on {@code order-events}, but most have no record until
 * their first attempt has its outcome (a delivery that succeeds at once is one {@code delivered} record). Until then
 * the store holds it as {@linkplain #untried untried}, told of it by the fan-out of this instance as it takes the
 * event, before the first request goes out ({@code EventFanOut}), and by the reader of {@code order-events} on every
 * instance ({@code UntriedDeliveries}), and lists it {@code pending} with no attempt; its first record replaces it.
 *
 * <p>Every delivery comes back thousands of times a second under load, while the list is read now and then, 50
 * records at a time. So a record is kept as the JSON it was stored as, with the few fields the store orders and looks
 * up by read from it without building its payload ({@link Kept}), and turned into a {@link Delivery} only when it is
 * asked for. Each record carries the order's trace context in its {@code traceparent} header, which a redelivery
 * sends on.
 */
@Component
public class DeliveryStore extends CompactedTopicView<String, String> {

    public static final int LISTED = 50;
    static final int KEPT_PER_SUBSCRIPTION = 500;

    /**
     * What the store reads of a stored record at once, for its ordering and lookups and for the subscription's health;
     * everything else, the payload above all, stays in {@link Kept#json}.
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Fields(String subscriptionId, DeliveryStatus status, long createdAt, int attempts, String lastError,
                  Long deliveredAt) {
    }

    /**
     * One delivery as kept in memory: its ordering and lookup fields, its trace context, and the record as stored
     * ({@code json}), or, for an untried delivery that has no record yet, how to make its {@code pending} one.
     */
    record Kept(String id, long createdAt, boolean settled, String json, String traceparent,
                Supplier<Delivery> untried) {

        Delivery delivery() {
            return json != null ? Json.read(json, Delivery.class) : untried.get();
        }
    }

    private static final Comparator<Kept> NEWEST_FIRST =
            Comparator.comparingLong(Kept::createdAt).reversed().thenComparing(Kept::id);

    private final KafkaTemplate<String, String> kafka;
    private final Map<String, Map<String, Kept>> bySubscription = new ConcurrentHashMap<>();
    private final Map<String, String> subscriptionOf = new ConcurrentHashMap<>();

    /** Counts what {@link #record} writes, by outcome; absent where no meter registry is. */
    private final DeliveryMeters meters;

    /** Told of every record read back, so each subscription's health follows its deliveries. */
    private final SubscriptionHealth health;

    public DeliveryStore(KafkaTemplate<String, String> kafka, KafkaSettings kafkaProperties,
                         ObjectProvider<DeliveryMeters> meters, SubscriptionHealth health) {
        super(kafkaProperties, Topics.WEBHOOK_DELIVERIES.name(), new StringDeserializer(),
                new StringDeserializer());
        this.kafka = kafka;
        this.meters = meters.getIfAvailable();
        this.health = health;
    }

    @Override
    protected void apply(ConsumerRecord<String, String> record) {
        apply(record.key(), record.value(), TraceHeaders.traceparent(record.headers()));
    }

    @Override
    protected void apply(String id, String json) {
        apply(id, json, null);
    }

    private void apply(String id, String json, String traceparent) {
        if (json == null) {
            String subscriptionId = subscriptionOf.remove(id);
            if (subscriptionId != null) {
                bySubscription.getOrDefault(subscriptionId, Map.of()).remove(id);
            }
            return;
        }
        Fields fields = Json.read(json, Fields.class);
        subscriptionOf.put(id, fields.subscriptionId());
        Map<String, Kept> deliveries =
                bySubscription.computeIfAbsent(fields.subscriptionId(), ignored -> new ConcurrentHashMap<>());
        Kept kept = new Kept(id, fields.createdAt(), fields.status() != DeliveryStatus.PENDING, json, traceparent,
                null);
        deliveries.put(id, kept);
        health.observe(id, fields, caughtUp().isDone());
        trim(deliveries);
    }

    /**
     * A delivery an order event made that has no record here yet: listed {@code pending}, with no attempt, until its
     * first record replaces it. Nothing happens when the delivery is known already (its record came first).
     *
     * @param createdAt   as its records will have it
     * @param traceparent the order's trace context, which its requests carry
     * @param pending     its {@code pending} record, made only when it is listed or looked up
     */
    public void untried(String subscriptionId, String deliveryId, long createdAt, String traceparent,
                        Supplier<Delivery> pending) {
        Map<String, Kept> deliveries =
                bySubscription.computeIfAbsent(subscriptionId, ignored -> new ConcurrentHashMap<>());
        if (deliveries.putIfAbsent(deliveryId,
                new Kept(deliveryId, createdAt, false, null, traceparent, pending)) == null) {
            subscriptionOf.put(deliveryId, subscriptionId);
            trim(deliveries);
        }
    }

    /** Keeps the {@value #KEPT_PER_SUBSCRIPTION} most recent of a subscription's deliveries. */
    private void trim(Map<String, Kept> deliveries) {
        if (deliveries.size() > KEPT_PER_SUBSCRIPTION + LISTED) {
            deliveries.values().stream().sorted(NEWEST_FIRST).skip(KEPT_PER_SUBSCRIPTION).toList()
                    .forEach(old -> {
                        // only that entry: a record that has just replaced it stays
                        if (deliveries.remove(old.id(), old)) {
                            subscriptionOf.remove(old.id());
                        }
                    });
        }
    }

    /** Completes once the delivery records stored before the start are all known. */
    public CompletableFuture<Void> loaded() {
        return caughtUp();
    }

    public Optional<Delivery> find(String subscriptionId, String deliveryId) {
        return Optional.ofNullable(bySubscription.getOrDefault(subscriptionId, Map.of()).get(deliveryId))
                .map(Kept::delivery);
    }

    /** The trace context the delivery's requests carry, when one is known here. */
    public Optional<String> traceparent(String subscriptionId, String deliveryId) {
        return Optional.ofNullable(bySubscription.getOrDefault(subscriptionId, Map.of()).get(deliveryId))
                .map(Kept::traceparent);
    }

    /** Whether the delivery is known here and no longer {@code pending}. */
    public boolean settled(String subscriptionId, String deliveryId) {
        Kept kept = bySubscription.getOrDefault(subscriptionId, Map.of()).get(deliveryId);
        return kept != null && kept.settled();
    }

    /**
     * Whether this task's delivery (the one written at {@code createdAt}; a replay writes it again with a later time)
     * is known here and no longer {@code pending}: an attempt record read again after a rebalance, whose attempt was
     * already sent and recorded, is then not sent twice.
     */
    public boolean settled(String subscriptionId, String deliveryId, long createdAt) {
        Kept kept = bySubscription.getOrDefault(subscriptionId, Map.of()).get(deliveryId);
        return kept != null && kept.settled() && kept.createdAt() == createdAt;
    }

    /** The {@value #LISTED} most recent deliveries of a subscription, newest first. */
    public List<Delivery> recent(String subscriptionId) {
        return bySubscription.getOrDefault(subscriptionId, Map.of()).values().stream()
                .sorted(NEWEST_FIRST)
                .limit(LISTED)
                .map(Kept::delivery)
                .toList();
    }

    /** Counts a new delivery (made by the fan-out or a replay), whatever its first record will be. */
    public void created() {
        if (meters != null) {
            meters.created();
        }
    }

    /**
     * Writes a status change, with the order's trace context ({@code traceparent}, none when null) in its header;
     * completes when the broker has it.
     */
    public CompletableFuture<Delivery> record(Delivery delivery, String traceparent) {
        return record(delivery, traceparent, delivery.createdAt());
    }

    /**
     * As {@link #record(Delivery, String)}, for an attempt asked for at {@code askedAt} (epoch milliseconds) rather
     * than when the delivery was made: a redelivery's lag runs from its request.
     */
    public CompletableFuture<Delivery> record(Delivery delivery, String traceparent, long askedAt) {
        return kafka.send(new ProducerRecord<>(Topics.WEBHOOK_DELIVERIES.name(), null, delivery.id(),
                        Json.write(delivery), TraceHeaders.of(traceparent)))
                .thenApply(ignored -> {
                    if (meters != null) {
                        meters.recorded(delivery, askedAt);
                    }
                    return delivery;
                });
    }
}
