package io.orderflow.dispatcher.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Reads a compacted topic from the beginning, on every partition, outside any consumer group, and hands each record
 * (value {@code null} for a tombstone) to a callback on its own thread. Every instance so sees the whole topic: the
 * in-memory views of subscriptions and deliveries are built this way.
 *
 * <p>{@link #applied(RecordMetadata)} lets a writer wait until its own record has reached the view, so a response
 * never shows an older state than the write it answers.
 */
public final class CompactedTopicReader implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(CompactedTopicReader.class);
    private static final Duration POLL = Duration.ofMillis(100);

    private final String topic;
    private final String bootstrapServers;
    private final BiConsumer<String, String> onRecord;
    private final Map<Integer, Long> positions = new HashMap<>();
    private final ConcurrentLinkedQueue<Waiter> waiters = new ConcurrentLinkedQueue<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final CompletableFuture<Void> caughtUp = new CompletableFuture<>();
    private volatile KafkaConsumer<String, String> consumer;
    private volatile boolean running;

    private record Waiter(int partition, long offset, CompletableFuture<Void> future) {
    }

    public CompactedTopicReader(String topic, String bootstrapServers, BiConsumer<String, String> onRecord) {
        this.topic = topic;
        this.bootstrapServers = bootstrapServers;
        this.onRecord = onRecord;
    }

    /** Completes once the record written at {@code metadata} has been handed to the callback. */
    public CompletableFuture<Void> applied(RecordMetadata metadata) {
        Waiter waiter = new Waiter(metadata.partition(), metadata.offset(), new CompletableFuture<>());
        waiters.add(waiter);
        releaseWaiters();
        return waiter.future();
    }

    /** Completes once everything that was on the topic when the reader started has been handed to the callback. */
    public CompletableFuture<Void> caughtUp() {
        return caughtUp;
    }

    @Override
    public void start() {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumer = new KafkaConsumer<>(config);
        running = true;
        Thread thread = new Thread(this::run, "view-" + topic);
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofMinutes(1)).stream()
                    .map(info -> new TopicPartition(topic, info.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            while (running) {
                for (ConsumerRecord<String, String> record : consumer.poll(POLL)) {
                    try {
                        onRecord.accept(record.key(), record.value());
                    } catch (RuntimeException e) {
                        log.warn("Skipping unreadable record {} on {}", record.offset(), topic, e);
                    }
                }
                synchronized (positions) {
                    for (TopicPartition partition : partitions) {
                        positions.put(partition.partition(), consumer.position(partition));
                    }
                }
                releaseWaiters();
                if (!caughtUp.isDone()
                        && ends.entrySet().stream().allMatch(end -> consumer.position(end.getKey()) >= end.getValue())) {
                    caughtUp.complete(null);
                }
            }
        } catch (WakeupException e) {
            // stopping
        } catch (RuntimeException e) {
            log.error("The view of {} stopped", topic, e);
        } finally {
            consumer.close(Duration.ofSeconds(1));
            stopped.countDown();
        }
    }

    private void releaseWaiters() {
        synchronized (positions) {
            waiters.removeIf(waiter -> {
                Long position = positions.get(waiter.partition());
                if (position != null && position > waiter.offset()) {
                    waiter.future().complete(null);
                    return true;
                }
                return false;
            });
        }
    }

    @Override
    public void stop() {
        running = false;
        KafkaConsumer<String, String> current = consumer;
        if (current != null) {
            current.wakeup();
            try {
                stopped.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        waiters.forEach(waiter -> waiter.future().cancel(false));
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
