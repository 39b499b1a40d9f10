package io.orderflow.gateway.kafka;

import io.orderflow.schemas.topics.Topic;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads every partition of one topic on a background thread, without a consumer group: either from the beginning
 * (to hold a view of a compacted topic) or from the end (to see only what arrives after {@link #start()}).
 * Only committed records are read, since the writers are transactional.
 */
public final class TopicReader<V> implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TopicReader.class);

    /** Where reading starts. */
    public enum From { BEGINNING, END }

    private static final Duration TOPIC_WAIT = Duration.ofSeconds(60);

    private final Topic<String, V> topic;
    private final From from;
    private final Consumer<ConsumerRecord<String, V>> handler;
    private final KafkaConsumer<String, V> consumer;
    private final CompletableFuture<Void> caughtUp = new CompletableFuture<>();
    private Map<TopicPartition, Long> initialEnd = Map.of();
    private Thread thread;
    private volatile boolean running;

    public TopicReader(String bootstrapServers, Topic<String, V> topic, From from,
                       Consumer<ConsumerRecord<String, V>> handler) {
        this.topic = topic;
        this.from = from;
        this.handler = handler;
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "gateway-" + topic.name() + "-reader");
        this.consumer = new KafkaConsumer<>(props, topic.keySerde().deserializer(), topic.valueSerde().deserializer());
    }

    /**
     * Assigns every partition and fixes the start positions before returning, so nothing written after this call
     * is missed; then polls on its own thread.
     */
    public void start() {
        List<TopicPartition> partitions = partitions();
        consumer.assign(partitions);
        if (from == From.BEGINNING) {
            consumer.seekToBeginning(partitions);
            initialEnd = consumer.endOffsets(partitions);
        } else {
            consumer.seekToEnd(partitions);
        }
        partitions.forEach(consumer::position); // resolve the lazy seek now
        checkCaughtUp();
        running = true;
        thread = Thread.ofPlatform().name("gateway-" + topic.name() + "-reader").daemon().start(this::pollLoop);
    }

    /** The topic's partitions, waiting (bounded) for a topic that the launcher or compose has not created yet. */
    private List<TopicPartition> partitions() {
        long deadline = System.nanoTime() + TOPIC_WAIT.toNanos();
        while (true) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic.name()).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            if (!partitions.isEmpty()) {
                return partitions;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Topic " + topic.name() + " does not exist");
            }
            log.info("Waiting for topic {} to be created", topic.name());
            LockSupport.parkNanos(Duration.ofMillis(500).toNanos());
        }
    }

    /** Completes once every record that existed at {@link #start()} has been handled. */
    public CompletableFuture<Void> caughtUp() {
        return caughtUp;
    }

    private void pollLoop() {
        try {
            while (running) {
                for (ConsumerRecord<String, V> record : poll()) {
                    try {
                        handler.accept(record);
                    } catch (RuntimeException e) {
                        log.warn("Skipping a record of {} that could not be handled", topic.name(), e);
                    }
                }
                checkCaughtUp();
            }
        } catch (WakeupException e) {
            // closing
        } catch (RuntimeException e) {
            log.error("Reader of {} stopped", topic.name(), e);
        } finally {
            consumer.close();
        }
    }

    private Iterable<ConsumerRecord<String, V>> poll() {
        try {
            return consumer.poll(Duration.ofMillis(500));
        } catch (RecordDeserializationException e) {
            log.warn("Skipping an unreadable record of {} at {}", e.topicPartition(), e.offset(), e);
            consumer.seek(e.topicPartition(), e.offset() + 1);
            return List.of();
        }
    }

    private void checkCaughtUp() {
        if (!caughtUp.isDone()
                && initialEnd.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue())) {
            caughtUp.complete(null);
        }
    }

    @Override
    public void close() {
        running = false;
        if (thread == null) {
            consumer.close();
            return;
        }
        consumer.wakeup();
        try {
            thread.join(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
