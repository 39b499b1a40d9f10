package io.orderflow.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p>What ends it is another end marker of the same producer for the group: {@link #release} opens a transaction under
 * each of the app's own transactional ids, adds the group's current offsets to it and aborts it. The coordinator drops
 * the producer's pending offsets on that marker; the committed offsets stay what they were (an abort commits nothing).
 * It fences the app's own producer, which Streams handles as a migrated task: the thread rejoins and starts its tasks.
 * It acts only when none of the app's transactional ids has a transaction open: an open one is the transaction
 * coordinator's to end (within its timeout), never this class's.
 */
public final class StaleOffsetCommits {

    private static final Logger log = LoggerFactory.getLogger(StaleOffsetCommits.class);

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Set<TransactionState> OPEN = Set.of(TransactionState.ONGOING,
            TransactionState.PREPARE_ABORT, TransactionState.PREPARE_COMMIT);

    /** A Streams thread producer's client id under exactly-once v2, and the transactional id it implies. */
    private static final Pattern THREAD_PRODUCER = Pattern.compile("^(.+)-StreamThread-(\\d+)-producer$");

    private StaleOffsetCommits() {
    }

    /**
     * The transactional id of a Streams thread producer under exactly-once v2, from its client id:
     * {@code <application.id>-<process id>-StreamThread-<n>-producer} writes as {@code <application.id>-<process id>-<n>}.
     */
    public static Optional<String> transactionalId(String producerClientId) {
        Matcher matcher = THREAD_PRODUCER.matcher(producerClientId);
        return matcher.matches() ? Optional.of(matcher.group(1) + "-" + matcher.group(2)) : Optional.empty();
    }

    /**
     * Aborts a transaction of each of {@code transactionalIds} that carries the current offsets of {@code partitions}
     * for {@code group}, when none of those ids has a transaction open. Answers whether it did.
     */
    public static boolean release(Admin admin, Properties config, String group, Collection<String> transactionalIds,
                           Collection<TopicPartition> partitions) {
        if (transactionalIds.isEmpty() || partitions.isEmpty()) {
            return false;
        }
        try {
            Map<String, TransactionDescription> described = admin.describeTransactions(transactionalIds).all()
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (described.values().stream().anyMatch(transaction -> OPEN.contains(transaction.state()))) {
                return false;
            }
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(Map.of(group,
                            new ListConsumerGroupOffsetsSpec().topicPartitions(List.copyOf(partitions))))
                    .partitionsToOffsetAndMetadata(group).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            offsets.values().removeIf(java.util.Objects::isNull);
            if (offsets.isEmpty()) {
                return false;
            }
            for (String transactionalId : transactionalIds) {
                abortWith(config, transactionalId, group, offsets, TIMEOUT);
            }
            log.warn("The committed offsets of {} in group {} stayed unstable with no transaction of {} open: "
                    + "released them with an aborted transaction under each id (the group coordinator had missed "
                    + "an end marker); the committed offsets are unchanged", offsets.keySet(), group,
                    transactionalIds);
            return true;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            log.warn("Could not release the unstable committed offsets of group {}", group, e);
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
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
