package io.orderflow.kafka;

import io.orderflow.schemas.topics.Topic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads every partition of one topic on a background thread, outside any consumer group, and hands each record to a
 * callback on that thread: either from the beginning, to hold an in-memory view of a compacted topic (every instance
 * of a service sees the whole topic, which a group would split), or from the end, to see only what arrives after
 * {@link #start()} (replies to requests sent after it), or from offsets of the caller's choosing
 * ({@link #startingAt}). Only committed records are read, since the writers are
 * transactional. A tombstone reaches the callback with a {@code null} value; a record that cannot be deserialized or
 * handled is skipped with a warning, so one bad record does not stop the view.
 *
 * <p>A reader runs once: {@link #start()}, then {@link #close()}. A lifecycle that may be stopped and started again
 * creates a new reader per start.
 */
public final class TopicReader<K, V> implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TopicReader.class);

    /** Where reading starts. */
    public enum From { BEGINNING, END }

    /** How long {@link #start()} waits for a topic that the provisioner has not created yet. */
    private static final Duration TOPIC_WAIT = Duration.ofSeconds(60);
    private static final Duration POLL = Duration.ofMillis(100);
    /** How long {@link #close()} waits for the polling thread to close the consumer and end. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final String topic;
    private final From from;
    private final Consumer<ConsumerRecord<K, V>> handler;
    private final String name;
    private final KafkaConsumer<K, V> consumer;
    private final CompletableFuture<Void> caughtUp = new CompletableFuture<>();
    /** Completes once the consumer is closed. */
    private final CompletableFuture<Void> consumerClosed = new CompletableFuture<>();
    /** Guards {@link #positions}, {@link #waiters} and {@link #stopped}: they are shared with writers' threads. */
    private final Object lock = new Object();
    private final Map<Integer, Long> positions = new HashMap<>();
    private final List<Waiter> waiters = new ArrayList<>();
    private boolean stopped;
    private List<TopicPartition> partitions = List.of();
    private byte[] onlyKey;
    private Function<List<TopicPartition>, Map<TopicPartition, Long>> startOffsets;
    private Map<TopicPartition, Long> initialEnd = Map.of();
    private Thread thread;
    private volatile boolean running;
    private volatile boolean closed;

    private record Waiter(int partition, long offset, CompletableFuture<Void> future) {
    }

    /** Reads a topic of the registry with its own serdes, on a plaintext cluster (tests). */
    public TopicReader(String bootstrapServers, Topic<K, V> topic, From from, Consumer<ConsumerRecord<K, V>> handler) {
        this(new KafkaSettings(bootstrapServers), topic, from, handler);
    }

    /** Reads a topic of the registry with its own serdes. */
    public TopicReader(KafkaSettings kafka, Topic<K, V> topic, From from, Consumer<ConsumerRecord<K, V>> handler) {
        this(kafka, topic.name(), topic.keySerde().deserializer(), topic.valueSerde().deserializer(), from, handler);
    }

    /** Reads {@code topic} with the given deserializers (for a service that reads a registry topic as plain text). */
    public TopicReader(KafkaSettings kafka, String topic, Deserializer<K> keys, Deserializer<V> values, From from,
                       Consumer<ConsumerRecord<K, V>> handler) {
        this(kafka, topic, keys, values, from, Map.of(), handler);
    }

    /**
     * As {@link #TopicReader(KafkaSettings, String, Deserializer, Deserializer, From, Consumer)}, with consumer
     * properties of its own over the client properties (fetch sizes, say; not what the reader needs itself: the
     * isolation level, no commits, its client id).
     */
    public TopicReader(KafkaSettings kafka, String topic, Deserializer<K> keys, Deserializer<V> values, From from,
                       Map<String, Object> consumerProperties, Consumer<ConsumerRecord<K, V>> handler) {
        this.topic = topic;
        this.from = from;
        this.handler = handler;
        // Unique per reader: two readers of one topic in a JVM (the standalone system, a restarted lifecycle) must not
        // share a client id, or the second one's metrics cannot be registered.
        this.name = topic + "-reader-" + SEQUENCE.incrementAndGet();
        Properties props = new Properties();
        props.putAll(kafka.clientProperties());
        props.putAll(consumerProperties);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
        props.putAll(SocketBuffers.client());
        this.consumer = new KafkaConsumer<>(props, keys, values);
    }

    /**
     * Reads only the partition that records keyed {@code serializedKey} are written to (the default partitioner's
     * choice), instead of every partition: for a reader that only wants the records of one key, such as a gateway
     * instance reading the replies keyed by its own id. Call before {@link #start()}.
     */
    public TopicReader<K, V> onlyPartitionOf(byte[] serializedKey) {
        this.onlyKey = serializedKey.clone();
        return this;
    }

    /**
     * Starts each partition at the offset {@code offsets} gives it (asked once, in {@link #start()}, with the
     * partitions read); a partition it gives none starts where {@code from} says. {@link #caughtUp()} then completes
     * once the reader has reached the ends the partitions had at the start. Call before {@link #start()}.
     */
    public TopicReader<K, V> startingAt(Function<List<TopicPartition>, Map<TopicPartition, Long>> offsets) {
        this.startOffsets = offsets;
        return this;
    }

    /**
     * Assigns every partition (or the one of {@link #onlyPartitionOf}) and fixes the start positions before returning, so nothing written after this call is
     * missed (a reply to a request sent after {@code start()} is always seen); then polls on its own thread.
     *
     * @throws IllegalStateException when the topic still does not exist after a minute
     */
    public void start() {
        partitions = partitions();
        consumer.assign(partitions);
        if (from == From.BEGINNING) {
            consumer.seekToBeginning(partitions);
        } else {
            consumer.seekToEnd(partitions);
        }
        if (startOffsets != null) {
            startOffsets.apply(partitions).forEach((partition, offset) -> {
                if (partitions.contains(partition) && offset != null) {
                    consumer.seek(partition, offset);
                }
            });
        }
        if (from == From.BEGINNING || startOffsets != null) {
            initialEnd = consumer.endOffsets(partitions);
        }
        partitions.forEach(consumer::position); // resolve the lazy seek now, not at the first poll
        updatePositions();
        checkCaughtUp();
        running = true;
        thread = Thread.ofPlatform().name(name).daemon().start(this::pollLoop);
    }

    /** The topic's partitions, waiting (bounded) for a topic that the launcher or compose has not created yet. */
    private List<TopicPartition> partitions() {
        long deadline = System.nanoTime() + TOPIC_WAIT.toNanos();
        while (true) {
            List<TopicPartition> found = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            if (!found.isEmpty()) {
                if (onlyKey == null) {
                    return found;
                }
                int partition = BuiltInPartitioner.partitionForKey(onlyKey, found.size());
                return found.stream().filter(p -> p.partition() == partition).toList();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Topic " + topic + " does not exist");
            }
            log.info("Waiting for topic {} to be created", topic);
            LockSupport.parkNanos(Duration.ofMillis(500).toNanos());
        }
    }

    /** Completes once every record that was on the topic at {@link #start()} has been handed to the callback. */
    public CompletableFuture<Void> caughtUp() {
        return caughtUp;
    }

    /**
     * Completes once the reader has passed the record written at {@code metadata} (handed it to the callback, or
     * skipped it), so a writer can answer only when its own write shows in the view it reads from, never with an older
     * state. Cancelled when the reader stops first.
     */
    public CompletableFuture<Void> applied(RecordMetadata metadata) {
        Waiter waiter = new Waiter(metadata.partition(), metadata.offset(), new CompletableFuture<>());
        List<Waiter> released;
        synchronized (lock) {
            if (stopped) {
                waiter.future().cancel(false);
                return waiter.future();
            }
            waiters.add(waiter);
            released = releaseWaiters();
        }
        complete(released);
        return waiter.future();
    }

    private void pollLoop() {
        try {
            while (running) {
                for (ConsumerRecord<K, V> record : poll()) {
                    try {
                        handler.accept(record);
                    } catch (RuntimeException e) {
                        log.warn("Skipping a record of {} at {}-{} that could not be handled", topic,
                                record.partition(), record.offset(), e);
                    }
                }
                updatePositions();
                checkCaughtUp();
            }
        } catch (WakeupException e) {
            // closing
        } catch (RuntimeException e) {
            log.error("Reader of {} stopped", topic, e);
        } finally {
            closeConsumer();
        }
    }

    private Iterable<ConsumerRecord<K, V>> poll() {
        try {
            return consumer.poll(POLL);
        } catch (RecordDeserializationException e) {
            log.warn("Skipping an unreadable record of {} at {}", e.topicPartition(), e.offset(), e);
            consumer.seek(e.topicPartition(), e.offset() + 1);
            return List.of();
        }
    }

    /** Publishes the consumer's positions (read on the reading thread only) to writers waiting in {@link #applied}. */
    private void updatePositions() {
        List<Waiter> released;
        synchronized (lock) {
            for (TopicPartition partition : partitions) {
                positions.put(partition.partition(), consumer.position(partition));
            }
            released = releaseWaiters();
        }
        complete(released);
    }

    /**
     * Takes out the waiters the positions have passed. They are completed by the caller once it holds the lock no more:
     * a completion runs what waited on it, which may be a write that waits on this reader in turn.
     */
    private List<Waiter> releaseWaiters() {
        List<Waiter> released = new ArrayList<>();
        waiters.removeIf(waiter -> {
            Long position = positions.get(waiter.partition());
            if (position != null && position > waiter.offset()) {
                released.add(waiter);
                return true;
            }
            return false;
        });
        return released;
    }

    private static void complete(List<Waiter> released) {
        released.forEach(waiter -> waiter.future().complete(null));
    }

    private void cancelWaiters() {
        synchronized (lock) {
            stopped = true;
            waiters.forEach(waiter -> waiter.future().cancel(false));
            waiters.clear();
        }
    }

    private void checkCaughtUp() {
        if (!caughtUp.isDone()
                && initialEnd.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue())) {
            caughtUp.complete(null);
        }
    }

    /** Stops reading: wakes the polling thread and waits (bounded) for it to close the consumer. Idempotent. */
    @Override
    public void close() {
        closeAsync();
        if (thread != null) {
            try {
                thread.join(CLOSE_WAIT);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Stops reading without waiting: wakes the polling thread, which closes the consumer. Completes once it has, or
     * once {@link #close()} would stop waiting for it. Closing a consumer waits for the answer to its last fetch, which
     * the broker holds up to {@code fetch.max.wait.ms} when there is nothing to read: readers closed together wait
     * for theirs at the same time. Idempotent.
     */
    public CompletableFuture<Void> closeAsync() {
        synchronized (consumerClosed) {
            if (!closed) {
                closed = true;
                running = false;
                if (thread == null) {
                    closeConsumer();
                } else {
                    consumer.wakeup();
                }
            }
        }
        return consumerClosed.copy().completeOnTimeout(null, CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void closeConsumer() {
        try {
            consumer.close();
        } finally {
            cancelWaiters();
            consumerClosed.complete(null);
        }
    }
}
