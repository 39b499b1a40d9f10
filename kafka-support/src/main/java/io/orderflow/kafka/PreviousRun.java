package io.orderflow.kafka;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settles what the app's previous run from the same state directory left in the cluster, before the app starts.
 *
 * <p>A Streams app keeps its process id in its state directory, and its thread producers' transactional ids and its
 * consumers' client ids are made of it. A run that died ({@code kill -9}) may have left a transaction open with offsets
 * committed inside it, and a static member in the group; with the broker restarted too (the standalone system), the
 * group coordinator (seen with Kafka 4.3.1) can keep such offsets unstable for good and wait for such a member without
 * end (see {@link FormerMembers}). Either holds the tasks of the new run.
 *
 * <p>The offsets: a Streams app's tasks start only once their partitions' committed offsets are stable, no transaction
 * that committed offsets for them still open. The dead process's last transaction is aborted when the restarted app's
 * producer initialises (same transactional id), and the abort marker is written to {@code __consumer_offsets}. The
 * group coordinator can miss that marker when it is written while the coordinator still loads the partition (seen with
 * 100,000 orders kept, whose offset commits make that partition slow to load): the transaction coordinator then reports
 * the transactional id {@code Empty}, the partition's log has no open transaction of the producer, and yet the
 * coordinator answers {@code UNSTABLE_OFFSET_COMMIT} for the group's partitions for as long as the broker runs. Another
 * end marker of the same producer for the group ends it ({@link #abortWith}); it would fence the id's producer if one
 * were alive, which before the app starts none is.
 *
 * <p>Before the app starts, none of its own clients is alive yet, so this can end all of it without fencing anything
 * live: it first reads the group's committed offsets (which answers only once the coordinator has loaded them), removes
 * this process's members under an earlier instance id, and then, under each of the app's transactional ids, initialises
 * a producer (which aborts what the dead run left open, now onto a loaded coordinator) and aborts one more transaction
 * carrying the group's offsets (an end marker for the group however the coordinator stood when the first was written).
 * An abort commits nothing: the committed offsets stay what they were. A first start (no process id kept) does nothing.
 *
 * <p>A group that shows no committed offsets although a previous run existed gets the same ends, carrying a
 * placeholder (offset 0 of a partition the app reads; aborted, so nothing is committed): a run that died inside its
 * first transaction left it open with nothing committed, and it would hold the new run's tasks until its timeout. In
 * two of forty crash rounds (Kafka 4.4.0, broker and apps restarted together) the coordinator showed no offsets for a
 * group that had them and answered {@code UNSTABLE_OFFSET_COMMIT} for all its partitions until the broker was restarted
 * again; those ends are writes to the group's partition, the one thing a start can do about that, and the offsets are
 * read again after them. Every step is bounded; one that fails is logged and the app starts anyway, with {@link
 * StreamsProgress} watching its start.
 */
public final class PreviousRun {

    private static final Logger log = LoggerFactory.getLogger(PreviousRun.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(15);
    /** How long a group that a previous run used may take to show its committed offsets, before and after an end. */
    private static final Duration SHOW_OFFSETS = Duration.ofSeconds(5);
    private static final Duration SHOW_AGAIN = Duration.ofSeconds(2);
    private static final Duration RETRY_EVERY = Duration.ofMillis(500);
    /** The file in which Kafka Streams keeps its process id, in the app's state directory. */
    static final String PROCESS_FILE = "kafka-streams-process-metadata";
    private static final Pattern PROCESS_ID = Pattern.compile("\"processId\"\\s*:\\s*\"([^\"]+)\"");

    private PreviousRun() {
    }

    /** What was settled: the former members removed and the transactional ids whose transactions were ended. */
    public record Settled(List<String> formerMembers, List<String> transactionalIds) {

        static final Settled NOTHING = new Settled(List.of(), List.of());
    }

    /**
     * Settles what the previous run of the app configured by {@code properties} left behind; see the class.
     *
     * @param sourceTopics the topics the app reads: a transaction ended where no committed offset is known carries
     *                     offset 0 of the first one's partition 0 (aborted, so it commits nothing)
     */
    public static Settled settle(String service, Properties properties, Collection<String> sourceTopics) {
        String group = properties.getProperty(StreamsConfig.APPLICATION_ID_CONFIG);
        Optional<String> processId = processId(Path.of(properties.getProperty(StreamsConfig.STATE_DIR_CONFIG), group));
        if (processId.isEmpty()) {
            log.info("{}: a first start from this state directory, no previous run to settle", service);
            return Settled.NOTHING;
        }
        String prefix = group + "-" + processId.get();
        List<Integer> threads = IntStream.rangeClosed(1, threads(properties)).boxed().toList();
        List<String> transactionalIds = threads.stream().map(thread -> prefix + "-" + thread).toList();
        try (Admin admin = Admin.create(StreamsApp.adminConfig(properties, service + "-previous-run", TIMEOUT))) {
            Map<TopicPartition, OffsetAndMetadata> offsets = committedOffsets(admin, group, SHOW_OFFSETS);
            if (offsets.isEmpty()) {
                Optional<TopicPartition> placeholder = sourceTopics.stream().sorted().findFirst()
                        .map(topic -> new TopicPartition(topic, 0));
                if (placeholder.isEmpty()) {
                    log.info("{}: its previous run committed no offsets in group {}, nothing to settle", service,
                            group);
                    return Settled.NOTHING;
                }
                transactionalIds.forEach(id -> abortWith(properties, id, group,
                        Map.of(placeholder.get(), new OffsetAndMetadata(0))));
                offsets = committedOffsets(admin, group, SHOW_AGAIN);
                if (offsets.isEmpty()) {
                    log.info("{}: its previous run committed no offsets in group {}; transactions of {} ended",
                            service, group, transactionalIds);
                    return new Settled(List.of(), transactionalIds);
                }
                log.info("{}: group {} showed its committed offsets only once a transaction of its previous run was "
                        + "ended", service, group);
            }
            List<String> removed = removeFormerMembers(admin, group, properties,
                    threads.stream().map(thread -> prefix + "-StreamThread-" + thread + "-consumer").toList());
            for (String transactionalId : transactionalIds) {
                abortWith(properties, transactionalId, group, offsets);
            }
            log.info("{}: settled what its previous run left: transactions of {} ended{}", service, transactionalIds,
                    removed.isEmpty() ? "" : ", former members " + removed + " removed from the group");
            return new Settled(removed, transactionalIds);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            log.warn("{}: could not settle what its previous run left; starting anyway: {}", service,
                    TopicProvisioner.reasons(e));
            return Settled.NOTHING;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Settled.NOTHING;
        }
    }

    /** The process id Kafka Streams keeps in the app's state directory {@code appStateDir}, if it keeps one. */
    static Optional<String> processId(Path appStateDir) {
        try {
            Matcher matcher = PROCESS_ID.matcher(Files.readString(appStateDir.resolve(PROCESS_FILE)));
            return matcher.find() ? Optional.of(matcher.group(1)) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty(); // a first start, or a state directory of another kind
        }
    }

    private static int threads(Properties properties) {
        Object threads = properties.get(StreamsConfig.NUM_STREAM_THREADS_CONFIG);
        return threads == null ? 1 : Integer.parseInt(threads.toString());
    }

    /**
     * The group's committed offsets. A group the coordinator does not know, or knows without offsets, is asked again
     * until {@code wait} has passed: the process id says a previous run existed.
     */
    private static Map<TopicPartition, OffsetAndMetadata> committedOffsets(Admin admin, String group, Duration wait)
            throws ExecutionException, TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            try {
                offsets.putAll(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                        .get(TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS));
                offsets.values().removeIf(Objects::isNull);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof GroupIdNotFoundException)) {
                    throw e;
                }
            }
            if (!offsets.isEmpty() || System.nanoTime() > deadline) {
                return offsets;
            }
            TimeUnit.MILLISECONDS.sleep(RETRY_EVERY.toMillis());
        }
    }

    private static List<String> removeFormerMembers(Admin admin, String group, Properties properties,
                                                    List<String> consumerClientIds)
            throws ExecutionException, TimeoutException, InterruptedException {
        Optional<String> instanceId = FormerMembers.instanceId(properties);
        if (instanceId.isEmpty()) {
            return List.of();
        }
        List<MemberDescription> former = FormerMembers.of(admin.describeConsumerGroups(List.of(group)).all()
                        .get(TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS).get(group).members(), consumerClientIds,
                instanceId.get());
        return FormerMembers.remove(admin, group, former);
    }

    /**
     * Under {@code transactionalId}: initialises a producer (which ends a transaction of that id left open) and aborts a
     * transaction carrying {@code offsets} for {@code group}: the coordinator drops the producer's pending offsets on that
     * marker, and the committed offsets stay what they were. Each step is bounded by {@link #TIMEOUT}.
     */
    @SuppressWarnings("removal") // a group's metadata for sendOffsetsToTransaction outside a consumer
    static void abortWith(Properties config, String transactionalId, String group,
                          Map<TopicPartition, OffsetAndMetadata> offsets) {
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
        producer.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) TIMEOUT.toMillis());
        try (KafkaProducer<byte[], byte[]> releasing = new KafkaProducer<>(producer, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            releasing.initTransactions();
            releasing.beginTransaction();
            releasing.sendOffsetsToTransaction(offsets, new ConsumerGroupMetadata(group));
            releasing.abortTransaction();
        }
    }
}
