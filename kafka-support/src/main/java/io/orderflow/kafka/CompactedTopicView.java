package io.orderflow.kafka;

import io.orderflow.schemas.topics.Topic;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * An in-memory view of a compacted topic, kept by reading the whole topic from the beginning on every partition
 * outside any consumer group (a {@link TopicReader}), so every instance of a service sees every record. Subclasses
 * apply each record (value {@code null} for a tombstone) in {@link #apply}, on the reader's thread.
 *
 * <p>The views of the services share it (flows, principals, customers, webhook subscriptions and deliveries); its
 * lifecycle is {@link TopicReaderLifecycle}'s.
 */
public abstract class CompactedTopicView<K, V> extends TopicReaderLifecycle<K, V> {

    private final Supplier<TopicReader<K, V>> newReader;

    /** A view of a topic of the registry, with its own serdes. */
    protected CompactedTopicView(KafkaSettings kafka, Topic<K, V> topic) {
        this.newReader = () -> new TopicReader<>(kafka, topic, TopicReader.From.BEGINNING, this::apply);
    }

    /** A view of {@code topic} read with the given deserializers (a registry topic read as plain text, say). */
    protected CompactedTopicView(KafkaSettings kafka, String topic, Deserializer<K> keys, Deserializer<V> values) {
        this.newReader = () -> new TopicReader<>(kafka, topic, keys, values, TopicReader.From.BEGINNING,
                this::apply);
    }

    /** Applies one record of the topic to the view; {@code value} is {@code null} for a tombstone. */
    protected abstract void apply(K key, V value);

    /**
     * Applies one record as read, for a view that needs more of it than its key and value (its headers, say); by
     * default {@link #apply(Object, Object)}.
     */
    protected void apply(ConsumerRecord<K, V> record) {
        apply(record.key(), record.value());
    }

    /** Completes once the record written at {@code metadata} is in the view (see {@link TopicReader#applied}). */
    protected CompletableFuture<Void> applied(RecordMetadata metadata) {
        return reader().applied(metadata);
    }

    /** Completes once the view holds everything that was on the topic when it started. */
    protected CompletableFuture<Void> caughtUp() {
        return reader().caughtUp();
    }

    @Override
    protected TopicReader<K, V> newReader() {
        return newReader.get();
    }
}
