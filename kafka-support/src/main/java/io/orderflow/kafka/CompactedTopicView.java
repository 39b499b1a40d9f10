package io.orderflow.kafka;

import io.orderflow.schemas.topics.Topic;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.Deserializer;
import org.springframework.context.SmartLifecycle;

/**
 * An in-memory view of a compacted topic, kept by reading the whole topic from the beginning on every partition
 * outside any consumer group (a {@link TopicReader}), so every instance of a service sees every record. Subclasses
 * apply each record (value {@code null} for a tombstone) in {@link #apply}, on the reader's thread.
 *
 * <p>This is the Spring lifecycle the views of the services share (flows, principals, customers, webhook
 * subscriptions and deliveries): a new reader per start, since a stopped reader cannot be started again. It starts in
 * phase 0, before the web server opens its port and before listener containers start.
 */
public abstract class CompactedTopicView<K, V> implements SmartLifecycle {

    private final Supplier<TopicReader<K, V>> newReader;
    private volatile TopicReader<K, V> reader;
    private volatile boolean running;

    /** A view of a topic of the registry, with its own serdes. */
    protected CompactedTopicView(String bootstrapServers, Topic<K, V> topic) {
        this.newReader = () -> new TopicReader<>(bootstrapServers, topic, TopicReader.From.BEGINNING,
                record -> apply(record.key(), record.value()));
    }

    /** A view of {@code topic} read with the given deserializers (a registry topic read as plain text, say). */
    protected CompactedTopicView(String bootstrapServers, String topic, Deserializer<K> keys, Deserializer<V> values) {
        this.newReader = () -> new TopicReader<>(bootstrapServers, topic, keys, values, TopicReader.From.BEGINNING,
                record -> apply(record.key(), record.value()));
    }

    /** Applies one record of the topic to the view; {@code value} is {@code null} for a tombstone. */
    protected abstract void apply(K key, V value);

    /** Completes once the record written at {@code metadata} is in the view (see {@link TopicReader#applied}). */
    protected CompletableFuture<Void> applied(RecordMetadata metadata) {
        return reader.applied(metadata);
    }

    /** Completes once the view holds everything that was on the topic when it started. */
    protected CompletableFuture<Void> caughtUp() {
        return reader.caughtUp();
    }

    /** After the reader started: a subclass opens here what it writes with. */
    protected void started() {
    }

    /** Before the reader closes: a subclass closes here what {@link #started()} opened. */
    protected void stopping() {
    }

    @Override
    public void start() {
        reader = newReader.get();
        reader.start();
        running = true;
        started();
    }

    @Override
    public void stop() {
        stopping();
        reader.close();
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return 0;
    }
}
