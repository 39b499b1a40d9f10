package io.orderflow.gateway.batches;

import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.SocketBuffers;
import io.orderflow.schemas.batches.BatchRecord;
import io.orderflow.schemas.topics.Topics;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;

/**
 * Writes records of the {@code batches} topic, each to the partition of its batch's id (the partition the default
 * partitioner gives the key {@code <batchId>}), so every record of a batch is on the partition its runner reads. One
 * idempotent producer: records of one batch arrive in the order they were sent.
 */
final class BatchWriter implements AutoCloseable {

    private final KafkaProducer<String, BatchRecord> producer;
    private volatile int partitions;

    BatchWriter(KafkaSettings kafka, String clientId) {
        Properties props = new Properties();
        props.putAll(kafka.clientProperties());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        props.putAll(SocketBuffers.client());
        producer = new KafkaProducer<>(props, Topics.BATCHES.keySerde().serializer(),
                Topics.BATCHES.valueSerde().serializer());
    }

    /** Sends {@code record} under its key; completes when the broker has it. */
    CompletableFuture<RecordMetadata> send(BatchRecord record) {
        return send(record.key(), record.batchId(), record);
    }

    /** Sends a tombstone for {@code key}, a key of batch {@code batchId}. */
    CompletableFuture<RecordMetadata> tombstone(String key, String batchId) {
        return send(key, batchId, null);
    }

    private CompletableFuture<RecordMetadata> send(String key, String batchId, BatchRecord value) {
        CompletableFuture<RecordMetadata> sent = new CompletableFuture<>();
        try {
            producer.send(new ProducerRecord<>(Topics.BATCHES.name(), partitionOf(batchId), key, value),
                    (metadata, error) -> {
                        if (error != null) {
                            sent.completeExceptionally(error);
                        } else {
                            sent.complete(metadata);
                        }
                    });
        } catch (RuntimeException e) {
            sent.completeExceptionally(e);
        }
        return sent;
    }

    /** The partition of {@code batchId}'s records: the default partitioner's for the key {@code <batchId>}. */
    int partitionOf(String batchId) {
        if (partitions == 0) {
            partitions = producer.partitionsFor(Topics.BATCHES.name()).size();
        }
        return BuiltInPartitioner.partitionForKey(batchId.getBytes(StandardCharsets.UTF_8), partitions);
    }

    /** Waits until everything sent so far is on the broker (or failed). */
    void flush() {
        producer.flush();
    }

    @Override
    public void close() {
        producer.close();
    }
}
