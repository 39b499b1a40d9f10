package io.orderflow.kafka.testing;

import io.orderflow.kafka.EmbeddedKafkaBroker;
import io.orderflow.kafka.TopicProvisioner;
import java.io.IOException;
import java.io.UncheckedIOException;
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
    private static String bootstrapServers;

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
     * own compacted topics, such as the principals of a deployment with a shared password). Stopped with the JVM.
     */
    public static synchronized String newCluster() {
        String cluster = dockerAvailable() ? startContainer() : startInProcess();
        TopicProvisioner.createMissing(cluster, 3, (short) 1);
        return cluster;
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

    private static boolean dockerAvailable() {
        if ("false".equals(System.getProperty("orderflow.test.docker"))) {
            return false;
        }
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static String startContainer() {
        KafkaContainer kafka = new KafkaContainer(IMAGE);
        kafka.start();
        Runtime.getRuntime().addShutdownHook(new Thread(kafka::stop, "test-kafka-stop"));
        return kafka.getBootstrapServers();
    }

    private static String startInProcess() {
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(uniqueStateDir("test-kafka"), 0);
        Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "test-kafka-stop"));
        return broker.bootstrapServers();
    }
}
