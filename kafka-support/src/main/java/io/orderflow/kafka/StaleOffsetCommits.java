package io.orderflow.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Releases committed offsets that the group coordinator keeps unstable for a transaction that has ended.
 *
 * <p>A Streams app's tasks start only once their partitions' committed offsets are stable: no transaction that
 * committed offsets for them is still open. After a {@code kill -9} of the whole standalone system (broker included),
 * the dead process's last transaction is aborted when the restarted app's producer initialises (same transactional id),
 * and the abort marker is written to {@code __consumer_offsets}. The group coordinator of Kafka 4.3.1 (where it was
 * seen; nothing says a later release differs) can miss that marker when it is written while the coordinator still loads
 * the partition (seen with 100,000 orders kept, whose offset commits make that partition slow to load): the transaction
 * coordinator then reports the transactional id {@code Empty}, the partition's log has no open transaction of the
 * producer, and yet the coordinator answers {@code UNSTABLE_OFFSET_COMMIT} for the group's partitions for as long as
 * the broker runs. Nothing in Kafka ends it.
 *
 * <p>What ends it is another end marker of the same producer for the group: {@link #abortWith} opens a transaction under
 * one of the app's own transactional ids, adds the group's current offsets to it and aborts it. The coordinator drops
 * the producer's pending offsets on that marker; the committed offsets stay what they were (an abort commits nothing).
 * It fences the id's producer if one is alive, so {@link PreviousRun} does it before the app starts, when none is.
 */
public final class StaleOffsetCommits {

    private StaleOffsetCommits() {
    }

    /**
     * Under {@code transactionalId}: initialises a producer (which ends a transaction of that id left open) and aborts a
     * transaction carrying {@code offsets} for {@code group}, each step bounded by {@code timeout}. Fences the id's
     * producer if one is alive.
     */
    @SuppressWarnings("removal") // a group's metadata for sendOffsetsToTransaction outside a consumer
    static void abortWith(Properties config, String transactionalId, String group,
                          Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
        Map<String, Object> producer = new HashMap<>();
        Set<String> known = ProducerConfig.configNames();
        config.forEach((name, value) -> {
            if (known.contains((String) name)) {
                producer.put((String) name, value);
            }
        });
        producer.keySet().removeAll(Set.of(ProducerConfig.CLIENT_ID_CONFIG, ProducerConfig.INTERCEPTOR_CLASSES_CONFIG,
                ProducerConfig.PARTITIONER_CLASS_CONFIG));
        producer.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        producer.put(ProducerConfig.CLIENT_ID_CONFIG, transactionalId + "-offsets-release");
        producer.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) timeout.toMillis());
        try (KafkaProducer<byte[], byte[]> releasing = new KafkaProducer<>(producer, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            releasing.initTransactions();
            releasing.beginTransaction();
            releasing.sendOffsetsToTransaction(offsets, new ConsumerGroupMetadata(group));
            releasing.abortTransaction();
        }
    }
}
