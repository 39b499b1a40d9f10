package io.orderflow.dispatcher.subscriptions;

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
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.stereotype.Component;

/**
 * The subscriptions: written to the compacted {@code webhook-subscriptions} topic (a tombstone on delete) and read
 * back from it into memory. Each dispatcher instance reads the whole topic.
 */
@Component
public class SubscriptionStore extends CompactedTopicView<String, String> {

    private final KafkaTemplate<String, String> kafka;
    private final Map<String, Subscription> byId = new ConcurrentHashMap<>();

    public SubscriptionStore(KafkaTemplate<String, String> kafka, KafkaSettings kafkaProperties) {
        super(kafkaProperties, Topics.WEBHOOK_SUBSCRIPTIONS.name(), new StringDeserializer(),
                new StringDeserializer());
        this.kafka = kafka;
    }

    @Override
    protected void apply(String id, String json) {
        if (json == null) {
            byId.remove(id);
        } else {
            byId.put(id, Json.read(json, Subscription.class));
        }
    }

    public Optional<Subscription> find(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    /** Every subscription, oldest first. */
    public List<Subscription> all() {
        return byId.values().stream()
                .sorted(Comparator.comparingLong(Subscription::createdAt).thenComparing(Subscription::id))
                .toList();
    }

    /** Completes when the subscription is stored and visible here. */
    public CompletableFuture<Subscription> save(Subscription subscription) {
        return kafka.send(Topics.WEBHOOK_SUBSCRIPTIONS.name(), subscription.id(), Json.write(subscription))
                .thenCompose(result -> applied(result.getRecordMetadata()))
                .thenApply(ignored -> subscription);
    }

    /** Completes when the tombstone is stored and the subscription is gone here. */
    public CompletableFuture<Void> delete(String id) {
        return kafka.send(Topics.WEBHOOK_SUBSCRIPTIONS.name(), id, null)
                .thenCompose(result -> applied(result.getRecordMetadata()));
    }

    /** Completes once the subscriptions stored before the start are all known. */
    public CompletableFuture<Void> loaded() {
        return caughtUp();
    }
}
