package io.orderflow.dispatcher.kafka;

import io.orderflow.kafka.TopicReader;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.springframework.context.SmartLifecycle;

/**
 * An in-memory view of a compacted topic, kept by reading the whole topic from the beginning on every partition
 * outside any consumer group (a {@link TopicReader}), so every dispatcher instance sees every record. Subclasses
 * apply each record (value {@code null} for a tombstone) in {@link #apply}, on the reader's thread.
 *
 * <p>This class is the Spring lifecycle the subscription and delivery stores share: a new reader per start, since a
 * stopped reader cannot be started again.
 */
public abstract class CompactedTopicView implements SmartLifecycle {

    private final String topic;
    private final String bootstrapServers;
    private volatile TopicReader<String, String> reader;
    private volatile boolean running;

    protected CompactedTopicView(String topic, String bootstrapServers) {
        this.topic = topic;
        this.bootstrapServers = bootstrapServers;
    }

    /** Applies one record of the topic to the view; {@code json} is {@code null} for a tombstone. */
    protected abstract void apply(String key, String json);

    /** Completes once the record written at {@code metadata} is in the view (see {@link TopicReader#applied}). */
    protected CompletableFuture<Void> applied(RecordMetadata metadata) {
        return reader.applied(metadata);
    }

    /** Completes once the view holds everything that was on the topic when it started. */
    protected CompletableFuture<Void> caughtUp() {
        return reader.caughtUp();
    }

    @Override
    public void start() {
        reader = new TopicReader<>(bootstrapServers, topic, new StringDeserializer(), new StringDeserializer(),
                TopicReader.From.BEGINNING, record -> apply(record.key(), record.value()));
        reader.start();
        running = true;
    }

    @Override
    public void stop() {
        reader.close();
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        // Before the listener containers (which start late), so fan-out sees the subscriptions read so far.
        return 0;
    }
}
