package io.orderflow.kafka.testing;

import io.orderflow.kafka.embedded.EmbeddedKafkaBroker;
import io.orderflow.kafka.TopicProvisioner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;

/**
 * The one place integration tests get a real broker from: Testcontainers' Kafka where a Docker engine answers,
 * otherwise the in-process KRaft broker. Started once per test JVM, with every topic of the registry created.
 */
public final class TestKafka {

    private static final String IMAGE = "apache/kafka:4.3.1";
    private static final Path DEFAULT_DOCKER_SOCKET = Path.of("/var/run/docker.sock");
    private static String bootstrapServers;
    private static Boolean dockerAnswers;

    private TestKafka() {
    }

    public static synchronized String bootstrapServers() {
        if (bootstrapServers == null) {
            bootstrapServers = dockerAvailable() ? startContainer() : startInProcess();
            TopicProvisioner.createMissing(bootstrapServers, 3, (short) 1);
        }
        return bootstrapServers;
    }

    /**
     * A second, separate cluster with every topic of the registry, for a test that needs a deployment of its own (its
     * own compacted topics, such as the principals of a deployment with a shared password). The test closes it when
     * done, so the clusters of a test JVM do not pile up.
     */
    public static synchronized Cluster newCluster() {
        Cluster cluster = dockerAvailable() ? container() : inProcess();
        TopicProvisioner.createMissing(cluster.bootstrapServers(), 3, (short) 1);
        return cluster;
    }

    /** A cluster {@link #newCluster started} for one test; {@link #close} stops it. */
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

    /** Asked once per test JVM: the answer does not change while the tests run. */
    private static synchronized boolean dockerAvailable() {
        if (dockerAnswers == null) {
            dockerAnswers = !"false".equals(System.getProperty("orderflow.test.docker"))
                    && !defaultSocketRefuses() && testcontainersFindsDocker();
        }
        return dockerAnswers;
    }

    /**
     * Whether the engine is plainly not running: no {@code DOCKER_HOST} points elsewhere, and the default socket is
     * there but nothing accepts on it (Docker installed, its daemon stopped). Answered by one connection attempt, where
     * Testcontainers would load its client and try each of its strategies first. Anything else is left to
     * Testcontainers.
     */
    private static boolean defaultSocketRefuses() {
        if (System.getenv("DOCKER_HOST") != null || !Files.exists(DEFAULT_DOCKER_SOCKET)) {
            return false;
        }
        try (SocketChannel ignored = SocketChannel.open(UnixDomainSocketAddress.of(DEFAULT_DOCKER_SOCKET))) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    private static boolean testcontainersFindsDocker() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException e) {
            return false;
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
        KafkaContainer kafka = new KafkaContainer(IMAGE);
        kafka.start();
        return new Cluster(kafka.getBootstrapServers(), kafka::stop);
    }

    private static Cluster inProcess() {
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(uniqueStateDir("test-kafka"), 0);
        return new Cluster(broker.bootstrapServers(), broker::close);
    }
}
