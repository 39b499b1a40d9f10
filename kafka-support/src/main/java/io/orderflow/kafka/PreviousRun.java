package io.orderflow.kafka;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * An abort commits nothing: the committed offsets stay what they were. A first start (no process id kept, no offsets
 * committed) does nothing. Every step is bounded; one that fails is logged and the app starts anyway, with {@link
 * StreamsProgress} watching its start.
 */
public final class PreviousRun {

    private static final Logger log = LoggerFactory.getLogger(PreviousRun.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(15);
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

    /** Settles what the previous run of the app configured by {@code properties} left behind; see the class. */
    public static Settled settle(String service, Properties properties) {
        String group = properties.getProperty(StreamsConfig.APPLICATION_ID_CONFIG);
        Optional<String> processId = processId(Path.of(properties.getProperty(StreamsConfig.STATE_DIR_CONFIG), group));
        if (processId.isEmpty()) {
            log.info("{}: a first start from this state directory, no previous run to settle", service);
            return Settled.NOTHING;
        }
        String prefix = group + "-" + processId.get();
        List<Integer> threads = IntStream.rangeClosed(1, threads(properties)).boxed().toList();
        try (Admin admin = Admin.create(StreamsApp.adminConfig(properties, service + "-previous-run", TIMEOUT))) {
            Map<TopicPartition, OffsetAndMetadata> offsets = committedOffsets(admin, group);
            if (offsets.isEmpty()) {
                log.info("{}: its previous run committed no offsets in group {}, nothing to settle", service, group);
                return Settled.NOTHING;
            }
            List<String> removed = removeFormerMembers(admin, group, properties,
                    threads.stream().map(thread -> prefix + "-StreamThread-" + thread + "-consumer").toList());
            List<String> ended = new ArrayList<>();
            for (int thread : threads) {
                String transactionalId = prefix + "-" + thread;
                abortWith(properties, transactionalId, group, offsets);
                ended.add(transactionalId);
            }
            log.info("{}: settled what its previous run left: transactions of {} ended{}", service, ended,
                    removed.isEmpty() ? "" : ", former members " + removed + " removed from the group");
            return new Settled(removed, ended);
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
     * until {@link #TIMEOUT} has passed: the process id says a previous run existed. In one crash round (Kafka 4.4.0,
     * broker and apps restarted together) a start settled nothing, with no line saying why, and the group's offsets
     * then stayed unstable for minutes.
     */
    private static Map<TopicPartition, OffsetAndMetadata> committedOffsets(Admin admin, String group)
            throws ExecutionException, TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
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
