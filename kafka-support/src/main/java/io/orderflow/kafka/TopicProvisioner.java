package io.orderflow.kafka;

import io.orderflow.schemas.topics.Topic;
import io.orderflow.schemas.topics.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the topics of the registry that are missing (existing topics are left as they are), and checks at a
 * service's start that they are there.
 */
public final class TopicProvisioner {

    private static final Logger log = LoggerFactory.getLogger(TopicProvisioner.class);
    /** How long an admin call may take before a start fails, instead of hanging on a cluster it cannot reach. */
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);
    /** How long a start check waits for topics that are missing at first (just created, not yet in metadata). */
    private static final Duration NEW_TOPIC_GRACE = Duration.ofSeconds(5);
    /** How to create the topics outside the standalone system, named in the error of a service that misses them. */
    public static final String PROVISION_COMMAND = "java -cp <any service jar> -Dloader.main="
            + TopicProvisioner.class.getName() + " org.springframework.boot.loader.launch.PropertiesLauncher";

    private TopicProvisioner() {
    }

    /**
     * Creates the missing topics on {@code KAFKA_BOOTSTRAP_SERVERS} (reached with the client properties of
     * {@link KafkaSettings#fromEnvironment}) with {@code TOPIC_PARTITIONS} (default 6) partitions, {@code
     * TOPIC_REPLICATION} replicas (default: the broker's) and {@code TOPIC_MIN_ISR}; docker-compose runs it once before
     * the services, and it is the provisioning command for any other cluster (see README, "Running each service
     * alone"). Exits 1 with the reason on stderr when it cannot.
     */
    public static void main(String[] args) {
        var env = System.getenv();
        try {
            createMissing(KafkaSettings.fromEnvironment(env),
                    Integer.parseInt(env.getOrDefault("TOPIC_PARTITIONS", "6").strip()));
        } catch (RuntimeException e) {
            System.err.println(reasons(e));
            System.exit(1);
        }
    }

    /** Creates the missing topics on a plaintext cluster with {@code replication} replicas (tests). */
    public static void createMissing(String bootstrapServers, int partitions, short replication) {
        createMissing(new KafkaSettings(bootstrapServers, null, null, replication, 0), partitions);
    }

    /**
     * Creates the missing topics of the registry with {@code partitions} partitions and the replication factor and
     * {@code min.insync.replicas} of {@code kafka}.
     *
     * @throws IllegalStateException when the cluster cannot be reached (wrong credentials, say) or refuses
     */
    public static void createMissing(KafkaSettings kafka, int partitions) {
        createMissing(kafka, Topics.ALL, partitions);
    }

    /**
     * Creates those of {@code topics} that are missing, as {@link #createMissing(KafkaSettings, int)} does the
     * registry's: for a topic only some deployments have (the service clock's).
     */
    public static void createMissing(KafkaSettings kafka, List<Topic<?, ?>> topics, int partitions) {
        try (Admin admin = admin(kafka)) {
            Set<String> existing = admin.listTopics().names().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            List<NewTopic> missing = topics.stream()
                    .filter(topic -> !existing.contains(topic.name()))
                    .map(topic -> newTopic(topic, partitions, kafka))
                    .toList();
            if (missing.isEmpty()) {
                return;
            }
            try {
                admin.createTopics(missing).all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
            log.info("Created topics {} ({} partitions, replication {}, {})", missing.stream().map(NewTopic::name)
                    .toList(), partitions, kafka.topicReplication() < 0 ? "broker default" : kafka.topicReplication(),
                    kafka.topicConfig().isEmpty() ? "broker default min.insync.replicas" : kafka.topicConfig());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while creating topics", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("Could not create topics on " + kafka.bootstrapServers() + ": "
                    + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("Could not create topics on " + kafka.bootstrapServers() + ": no answer in "
                    + ADMIN_TIMEOUT.toSeconds() + " s", e);
        }
    }

    /**
     * Checks that every topic of the registry exists and that they all have the same number of partitions (an
     * order's messages meet in the same partition number of each topic), {@code partitions} when given.
     *
     * @throws IllegalStateException naming the missing topics and those with other partition counts, and the
     *                               provisioning command; or saying why the cluster could not be asked (an
     *                               authentication failure names itself in the cause)
     */
    public static void verify(KafkaSettings kafka, Optional<Integer> partitions) {
        List<String> names = Topics.ALL.stream().map(Topic::name).toList();
        Map<String, Integer> found = new TreeMap<>();
        List<String> missing = new ArrayList<>();
        try (Admin admin = admin(kafka)) {
            Set<String> existing = existingTopics(admin, names);
            names.stream().filter(name -> !existing.contains(name)).forEach(missing::add);
            List<String> present = names.stream().filter(existing::contains).toList();
            if (!present.isEmpty()) {
                Map<String, TopicDescription> described = admin.describeTopics(present).allTopicNames()
                        .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                described.forEach((name, description) -> found.put(name, description.partitions().size()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while checking topics", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("Cannot check the topics on Kafka at " + kafka.bootstrapServers() + ": "
                    + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("Cannot check the topics on Kafka at " + kafka.bootstrapServers()
                    + ": no answer in " + ADMIN_TIMEOUT.toSeconds() + " s", e);
        }
        int expected = partitions.orElseGet(() -> mostCommon(found));
        Map<String, Integer> wrong = new TreeMap<>(found);
        wrong.values().removeIf(count -> count == expected);
        if (missing.isEmpty() && wrong.isEmpty()) {
            log.info("Topics checked on {} (client properties {}): all {} present with {} partitions",
                    kafka.bootstrapServers(), kafka.passThroughNames(), names.size(), expected);
            return;
        }
        StringBuilder message = new StringBuilder("Kafka topics at " + kafka.bootstrapServers() + " are not as this "
                + "service needs them:");
        if (!missing.isEmpty()) {
            message.append(" missing ").append(missing).append(';');
        }
        if (!wrong.isEmpty()) {
            message.append(" expected ").append(expected).append(" partitions but found ").append(wrong)
                    .append(" (an order's records must meet in the same partition number of every topic: delete and"
                            + " recreate these);");
        }
        message.append(" provision with: TOPIC_PARTITIONS=").append(expected).append(' ').append(PROVISION_COMMAND);
        throw new IllegalStateException(message.toString());
    }

    /**
     * The cluster's topics; while some of {@code needed} are not among them, asks again for a few seconds, since a
     * topic the provisioner has just created reaches every broker's metadata a moment later.
     */
    private static Set<String> existingTopics(Admin admin, List<String> needed)
            throws InterruptedException, ExecutionException, TimeoutException {
        long deadline = System.nanoTime() + NEW_TOPIC_GRACE.toNanos();
        while (true) {
            Set<String> existing = admin.listTopics().names().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (existing.containsAll(needed) || System.nanoTime() > deadline) {
                return existing;
            }
            Thread.sleep(250);
        }
    }

    private static int mostCommon(Map<String, Integer> partitionCounts) {
        return partitionCounts.values().stream()
                .collect(Collectors.groupingBy(count -> count, TreeMap::new, Collectors.counting()))
                .entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(6);
    }

    /**
     * An admin client with the client properties; one that cannot even be created (a SASL mechanism without its JAAS
     * configuration, say) says why.
     */
    private static Admin admin(KafkaSettings kafka) {
        Map<String, Object> config = new HashMap<>(kafka.clientProperties());
        config.putAll(SocketBuffers.client());
        config.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) ADMIN_TIMEOUT.toMillis());
        try {
            return Admin.create(config);
        } catch (KafkaException e) {
            throw new IllegalStateException("Cannot create a Kafka client for " + kafka.bootstrapServers()
                    + " with the given client properties " + kafka.passThroughNames() + ": " + reasons(e), e);
        }
    }

    /** The messages of a failure and its causes, each once: the innermost usually names the setting at fault. */
    static String reasons(Throwable failure) {
        List<String> messages = new ArrayList<>();
        for (Throwable cause = failure; cause != null && messages.size() < 6; cause = cause.getCause()) {
            String message = cause.getMessage();
            if (message != null && messages.stream().noneMatch(message::contains)) {
                messages.add(message);
            }
        }
        return String.join(": ", messages);
    }

    private static NewTopic newTopic(Topic<?, ?> topic, int partitions, KafkaSettings kafka) {
        NewTopic newTopic = new NewTopic(topic.name(), Optional.of(partitions), Optional.of(kafka.topicReplication())
                .filter(replication -> replication > 0));
        Map<String, String> configs = new HashMap<>(kafka.topicConfig());
        configs.putAll(topic.config());
        if (topic.compacted()) {
            configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
        }
        newTopic.configs(configs);
        return newTopic;
    }
}
