package io.orderflow.dispatcher.deliveries;

import io.orderflow.dispatcher.subscriptions.SubscriptionHealth;
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
 */
@Component
public class DeliveryStore extends CompactedTopicView<String, String> {

    public static final int LISTED = 50;
    static final int KEPT_PER_SUBSCRIPTION = 500;

    private static final Comparator<Delivery> NEWEST_FIRST =
            Comparator.comparingLong(Delivery::createdAt).reversed().thenComparing(Delivery::id);

    private final KafkaTemplate<String, String> kafka;
    private final Map<String, Map<String, Delivery>> bySubscription = new ConcurrentHashMap<>();
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
        Delivery delivery = Json.read(json, Delivery.class);
        subscriptionOf.put(id, delivery.subscriptionId());
        Map<String, Delivery> deliveries =
                bySubscription.computeIfAbsent(delivery.subscriptionId(), ignored -> new ConcurrentHashMap<>());
        deliveries.put(id, delivery);
        health.observe(delivery, caughtUp().isDone());
        if (deliveries.size() > KEPT_PER_SUBSCRIPTION + LISTED) {
            deliveries.values().stream().sorted(NEWEST_FIRST).skip(KEPT_PER_SUBSCRIPTION).toList()
                    .forEach(old -> {
                        deliveries.remove(old.id());
                        subscriptionOf.remove(old.id());
                    });
        }
    }

    public Optional<Delivery> find(String subscriptionId, String deliveryId) {
        return Optional.ofNullable(bySubscription.getOrDefault(subscriptionId, Map.of()).get(deliveryId));
    }

    /** The {@value #LISTED} most recent deliveries of a subscription, newest first. */
    public List<Delivery> recent(String subscriptionId) {
        return bySubscription.getOrDefault(subscriptionId, Map.of()).values().stream()
                .sorted(NEWEST_FIRST)
                .limit(LISTED)
                .toList();
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
