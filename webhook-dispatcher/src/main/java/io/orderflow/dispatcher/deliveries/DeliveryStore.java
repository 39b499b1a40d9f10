package io.orderflow.dispatcher.deliveries;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.CompactedTopicView;
import org.apache.kafka.common.serialization.StringDeserializer;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.topics.Topics;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.stereotype.Component;

/**
 * The delivery records: every status change is written to the compacted {@code webhook-deliveries} topic and read
 * back into memory, grouped by subscription. Only the most recent {@link #KEPT_PER_SUBSCRIPTION} records per
 * subscription stay in memory; the API lists at most {@link #LISTED}.
 *
 * <p>Every delivery comes back at least twice ({@code pending}, then {@code delivered} or {@code failed}), thousands
 * a second under load, while the list is read now and then, 50 records at a time. So a record is kept as the JSON it
 * was stored as, with the few fields the store orders and looks up by read from it without building its payload
 * ({@link Kept}), and turned into a {@link Delivery} only when it is asked for.
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

    /** One delivery record as kept in memory: its ordering and lookup fields, and the record as stored. */
    record Kept(String id, long createdAt, boolean settled, String json) {

        Delivery delivery() {
            return Json.read(json, Delivery.class);
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
    protected void apply(String id, String json) {
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
        Kept kept = new Kept(id, fields.createdAt(), fields.status() != DeliveryStatus.PENDING, json);
        deliveries.put(id, kept);
        health.observe(id, fields, caughtUp().isDone());
        if (deliveries.size() > KEPT_PER_SUBSCRIPTION + LISTED) {
            deliveries.values().stream().sorted(NEWEST_FIRST).skip(KEPT_PER_SUBSCRIPTION).toList()
                    .forEach(old -> {
                        deliveries.remove(old.id());
                        subscriptionOf.remove(old.id());
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

    /** Writes a status change; completes when the broker has it. */
    public CompletableFuture<Delivery> record(Delivery delivery) {
        return kafka.send(Topics.WEBHOOK_DELIVERIES.name(), delivery.id(), Json.write(delivery))
                .thenApply(ignored -> {
                    if (meters != null) {
                        meters.recorded(delivery);
                    }
                    return delivery;
                });
    }
}
