package io.orderflow.kafka.testing;

import io.orderflow.kafka.embedded.EmbeddedKafkaBroker;
import io.orderflow.kafka.TopicProvisioner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.common.utils.internals.AppInfoParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The one place integration tests get a real broker from. Most get the in-process KRaft broker; the classes tagged
 * {@code docker} (one per module with broker tests) take {@link #containerBootstrapServers()}: Testcontainers' Kafka
 * where a Docker engine answers and has the image, else the same in-process broker. {@code -Dorderflow.test.docker}
 * (or the environment's ORDERFLOW_TEST_DOCKER) chooses: unset or {@code true} as said, {@code all} every broker on Testcontainers (where it can), {@code false}
 * none. A container costs 7 to 30 s to start on the shared 2-core machine, and every class that starts deployments of
 * its own would pay it for each (docs/testing.md has the figures). Each broker is started once per test JVM, with
 * every topic of the registry created.
 */
public final class TestKafka {

    private static final Logger LOG = LoggerFactory.getLogger(TestKafka.class);
    /** The image Testcontainers 2.0.5 starts its resource reaper (Ryuk) from, unless TESTCONTAINERS_RYUK_DISABLED. */
    private static final String RYUK_IMAGE = "testcontainers/ryuk:0.14.0";
    private static String bootstrapServers;
    private static String containerBootstrapServers;
    private static Boolean dockerAnswers;
    /** Clusters of {@link #newCluster()} that their tests closed, emptied for the next one. */
    private static final Deque<Cluster> emptied = new ArrayDeque<>();
    private static boolean stopEmptiedAtExit;

    private TestKafka() {
    }

    /** The broker most tests share: in-process, or on Testcontainers with {@code -Dorderflow.test.docker=all}. */
    public static synchronized String bootstrapServers() {
        if (bootstrapServers == null) {
            bootstrapServers = "all".equals(mode()) && dockerAvailable() ? startContainer() : startInProcess();
            TopicProvisioner.createMissing(bootstrapServers, 3, (short) 1);
        }
        return bootstrapServers;
    }

    /**
     * The broker of the classes tagged {@code docker}: Testcontainers' Kafka, from {@link #image()}, where a Docker
     * engine answers and has the images (the log says which broker and, if in-process, why); otherwise the shared
     * in-process broker of {@link #bootstrapServers()}.
     */
    public static synchronized String containerBootstrapServers() {
        if (containerBootstrapServers == null) {
            if (dockerAvailable()) {
                containerBootstrapServers = "all".equals(mode()) ? bootstrapServers() : startContainer();
                TopicProvisioner.createMissing(containerBootstrapServers, 3, (short) 1);
            } else {
                containerBootstrapServers = bootstrapServers();
            }
        }
        return containerBootstrapServers;
    }

    /**
     * A second, separate cluster with every topic of the registry and nothing else, for a test that needs a deployment
     * of its own (its own compacted topics, such as the principals of a deployment with a shared password). The test
     * closes it when done, so the clusters of a test JVM do not pile up. A closed cluster is emptied (every topic and
     * consumer group deleted) and kept for the JVM's next call instead of being stopped, which saves the next
     * deployment a broker's start, its stop and the creation of the broker's internal topics; one that cannot be
     * emptied (a group that still has members) is stopped.
     */
    public static synchronized Cluster newCluster() {
        Cluster started = emptied.poll();
        if (started == null) {
            started = "all".equals(mode()) && dockerAvailable() ? container() : inProcess();
        }
        TopicProvisioner.createMissing(started.bootstrapServers(), 3, (short) 1);
        Cluster cluster = started;
        AtomicBoolean closed = new AtomicBoolean();
        return new Cluster(cluster.bootstrapServers(), () -> {
            if (closed.compareAndSet(false, true)) {
                emptyOrStop(cluster);
            }
        });
    }

    private static void emptyOrStop(Cluster cluster) {
        try {
            empty(cluster.bootstrapServers());
        } catch (Exception e) {
            LOG.info("Test cluster on {} stopped, not kept: it could not be emptied ({})", cluster.bootstrapServers(),
                    e.getMessage());
            cluster.close();
            return;
        }
        synchronized (TestKafka.class) {
            if (emptied.isEmpty() && !stopEmptiedAtExit) {
                Runtime.getRuntime().addShutdownHook(new Thread(TestKafka::stopEmptied, "test-kafka-stop-emptied"));
                stopEmptiedAtExit = true;
            }
            emptied.push(cluster);
        }
    }

    private static synchronized void stopEmptied() {
        emptied.forEach(Cluster::close);
        emptied.clear();
    }

    /** Deletes every consumer group (failing on one that has members) and every topic but the broker's own. */
    private static void empty(String bootstrapServers) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000))) {
            Set<String> groups = admin.listGroups(ListGroupsOptions.forConsumerGroups()).all()
                    .get(30, TimeUnit.SECONDS).stream().map(GroupListing::groupId).collect(Collectors.toSet());
            if (!groups.isEmpty()) {
                admin.deleteConsumerGroups(groups).all().get(30, TimeUnit.SECONDS);
            }
            Set<String> topics = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            if (!topics.isEmpty()) {
                admin.deleteTopics(topics).all().get(30, TimeUnit.SECONDS);
            }
        }
    }

    /** A cluster {@link #newCluster started} for one test; {@link #close} stops it (or empties it for the next). */
    public record Cluster(String bootstrapServers, AutoCloseable stop) implements AutoCloseable {

        @Override
        public void close() {
            try {
                stop.close();
            } catch (Exception e) {
                throw new IllegalStateException("Could not stop the test cluster at " + bootstrapServers, e);
            }
        }
    }

    /** A fresh Kafka Streams application id, so tests never share consumer groups or changelogs. */
    public static String uniqueApplicationId(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    /** A fresh, empty directory for a Kafka Streams state store or a service's data. */
    public static Path uniqueStateDir(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Copies the tree under {@code from} into {@code to}, file by file as it is now: a directory of a running broker or
     * system copied so is what a {@code kill -9} would have left.
     */
    public static void copyTree(Path from, Path to) throws IOException {
        try (var paths = Files.walk(from)) {
            for (Path path : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(path, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    /** {@code -Dorderflow.test.docker}, else the environment's ORDERFLOW_TEST_DOCKER (.ci/run's), else {@code true}. */
    public static String mode() {
        String mode = System.getProperty("orderflow.test.docker", System.getenv("ORDERFLOW_TEST_DOCKER"));
        return mode == null || mode.isBlank() ? "true" : mode;
    }

    /** Asked once per test JVM: the answer does not change while the tests run. */
    private static synchronized boolean dockerAvailable() {
        if (dockerAnswers == null) {
            String reason = reasonNotToUseDocker();
            dockerAnswers = reason == null;
            LOG.info(reason == null ? "Test broker: Testcontainers' Kafka (" + image() + ")"
                    : "Test broker: the in-process KRaft broker, since " + reason);
        }
        return dockerAnswers;
    }

    /**
     * The image the container is started from: {@code -Dorderflow.test.kafka-image}, by default the upstream
     * {@code apache/kafka} image of the Kafka version on the classpath (the name {@code docker/offline-images.sh} gives
     * its stand-in). Either is declared a substitute for {@code apache/kafka}, which the Kafka module checks.
     */
    public static DockerImageName image() {
        String name = System.getProperty("orderflow.test.kafka-image", "apache/kafka:" + AppInfoParser.getVersion());
        return DockerImageName.parse(name).asCompatibleSubstituteFor("apache/kafka");
    }

    /**
     * Why the tests of this JVM do not use a container, or {@code null} when they do. Where no {@code DOCKER_HOST}
     * points elsewhere, the engine's default socket is asked first (a few seconds at most): whether it answers at all
     * (Docker installed, its daemon stopped), and whether the images the container needs are there, since
     * Testcontainers would otherwise try to pull a missing one for minutes (two rounds of two minutes each where no
     * registry answers) before giving up. Anything else is left to Testcontainers.
     */
    private static String reasonNotToUseDocker() {
        if ("false".equals(mode())) {
            return "orderflow.test.docker (or ORDERFLOW_TEST_DOCKER) is false";
        }
        if (System.getenv("DOCKER_HOST") == null) {
            String noEngine = DockerEngine.whyNoEngine();
            if (noEngine != null) {
                return noEngine;
            }
            String kafka = image().asCanonicalNameString();
            if (!DockerEngine.hasImage(kafka)) {
                return "the engine has no image " + kafka + " (docker pull it, or build its stand-in with "
                        + "docker/offline-images.sh where no registry answers)";
            }
            if (!Boolean.parseBoolean(System.getenv("TESTCONTAINERS_RYUK_DISABLED")) && !DockerEngine.hasImage(RYUK_IMAGE)) {
                return "the engine has no image " + RYUK_IMAGE + " for Testcontainers' Ryuk (docker pull it, or set "
                        + "TESTCONTAINERS_RYUK_DISABLED=true where no registry answers, as .ci/run does)";
            }
        }
        try {
            return DockerClientFactory.instance().isDockerAvailable() ? null : "Testcontainers finds no Docker engine";
        } catch (RuntimeException e) {
            return "Testcontainers finds no Docker engine (" + e.getMessage() + ")";
        }
    }

    private static String startContainer() {
        Cluster cluster = container();
        Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "test-kafka-stop"));
        return cluster.bootstrapServers();
    }

    private static String startInProcess() {
        Cluster cluster = inProcess();
        Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "test-kafka-stop"));
        return cluster.bootstrapServers();
    }

    private static Cluster container() {
        KafkaContainer kafka = new KafkaContainer(image());
        kafka.start();
        return new Cluster(kafka.getBootstrapServers(), kafka::stop);
    }

    private static Cluster inProcess() {
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(uniqueStateDir("test-kafka"), 0);
        return new Cluster(broker.bootstrapServers(), broker::close);
    }
}
