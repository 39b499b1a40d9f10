package io.orderflow.kafka.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import com.yammer.metrics.core.Histogram;
import com.yammer.metrics.stats.UniformSample;
import io.orderflow.kafka.TopicProvisioner;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.topics.Topics;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.server.metrics.KafkaYammerMetrics;
import org.junit.jupiter.api.Test;

class EmbeddedKafkaBrokerTest {

    @Test
    void keepsRecordsAcrossARestartOnTheSameDirectory() throws Exception {
        Path dir = TestKafka.uniqueStateDir("broker-restart");
        String topic = Topics.ORDER_EVENTS.name();

        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dir, 0)) {
            TopicProvisioner.createMissing(broker.bootstrapServers(), 1, (short) 1);
            try (var producer = new KafkaProducer<String, String>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true),
                    new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>(topic, "ord_1", "kept")).get();
            }
        }

        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dir, 0);
             var consumer = new KafkaConsumer<String, String>(Map.of(
                     ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                     new StringDeserializer(), new StringDeserializer())) {
            TopicProvisioner.createMissing(broker.bootstrapServers(), 1, (short) 1);
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            List<String> values = consumer.poll(Duration.ofSeconds(10)).records(partition).stream()
                    .map(ConsumerRecord::value).toList();
            assertThat(values).containsExactly("kept");
        }
    }

    /**
     * A directory copied while its broker runs is what a killed broker leaves (its files as the page cache held them,
     * no clean-stop marker): a start on it recovers, stops cleanly and starts again, and then holds every record and a
     * group's offsets committed in a transaction, stable. A start on a directory stopped cleanly goes straight through.
     */
    @Test
    @SuppressWarnings("removal") // a group's metadata for sendOffsetsToTransaction outside a consumer
    void aStartAfterAnUncleanStopRestartsCleanlyAndKeepsRecordsAndCommittedOffsets() throws Exception {
        Path dir = TestKafka.uniqueStateDir("broker-unclean");
        Path killed = TestKafka.uniqueStateDir("broker-unclean-copy");
        String topic = Topics.ORDER_EVENTS.name();
        TopicPartition partition = new TopicPartition(topic, 0);
        String group = "unclean-" + UUID.randomUUID();

        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dir, 0)) {
            assertThat(broker.startedAfterUncleanStop()).as("a new directory").isFalse();
            TopicProvisioner.createMissing(broker.bootstrapServers(), 1, (short) 1);
            try (var producer = new KafkaProducer<String, String>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                    ProducerConfig.TRANSACTIONAL_ID_CONFIG, group + "-tx"),
                    new StringSerializer(), new StringSerializer())) {
                producer.initTransactions();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>(topic, 0, "ord_1", "kept"));
                producer.sendOffsetsToTransaction(Map.of(partition, new OffsetAndMetadata(1)),
                        new ConsumerGroupMetadata(group));
                producer.commitTransaction();
            }
            TestKafka.copyTree(dir, killed);
        }

        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(killed, 0);
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()));
             var consumer = new KafkaConsumer<String, String>(Map.of(
                     ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                     ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                     new StringDeserializer(), new StringDeserializer())) {
            assertThat(broker.startedAfterUncleanStop()).isTrue();
            assertThat(admin.listConsumerGroupOffsets(Map.of(group, new ListConsumerGroupOffsetsSpec()),
                    new ListConsumerGroupOffsetsOptions().requireStable(true)).partitionsToOffsetAndMetadata(group)
                    .get()).containsEntry(partition, new OffsetAndMetadata(1));
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            assertThat(consumer.poll(Duration.ofSeconds(10)).records(partition).stream().map(ConsumerRecord::value))
                    .containsExactly("kept");
        }

        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(killed, 0)) {
            assertThat(broker.startedAfterUncleanStop()).as("after the clean stop above").isFalse();
        }
    }

    /**
     * The broker's request histograms take a uniform sample, which links no new objects into the old generation on
     * each update (see {@link UniformRequestHistograms}), and they still measure what they measured.
     */
    @Test
    void requestHistogramsStillMeasureWithAUniformSample() throws Exception {
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(TestKafka.uniqueStateDir("broker-histograms"), 0)) {
            TopicProvisioner.createMissing(broker.bootstrapServers(), 1, (short) 1);
            try (var producer = new KafkaProducer<String, String>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                    ProducerConfig.LINGER_MS_CONFIG, 0),
                    new StringSerializer(), new StringSerializer())) {
                for (int i = 0; i < 20; i++) {
                    producer.send(new ProducerRecord<>(Topics.ORDER_EVENTS.name(), "ord_" + i, "event")).get();
                }
            }

            Histogram produceTime = requestHistogram("TotalTimeMs", "Produce");
            assertThat(sampleOf(produceTime)).isInstanceOf(UniformSample.class);
            assertThat(produceTime.count()).isGreaterThanOrEqualTo(20);
            assertThat(produceTime.getSnapshot().size()).isEqualTo((int) produceTime.count());
            assertThat(KafkaYammerMetrics.defaultRegistry().allMetrics().values().stream()
                    .filter(Histogram.class::isInstance).map(h -> sampleOf((Histogram) h)))
                    .as("every histogram of the broker").isNotEmpty().allMatch(UniformSample.class::isInstance);
        }
    }

    /** The broker's listeners leave TCP buffers to the kernel, which grows them instead of dropping segments. */
    @Test
    void theBrokerLetsTheOperatingSystemSizeItsSocketBuffers() throws Exception {
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(TestKafka.uniqueStateDir("broker-sockets"), 0);
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            ConfigResource node = new ConfigResource(ConfigResource.Type.BROKER, "1");
            Config config = admin.describeConfigs(List.of(node)).all().get().get(node);

            assertThat(config.get("socket.receive.buffer.bytes").value()).isEqualTo("-1");
            assertThat(config.get("socket.send.buffer.bytes").value()).isEqualTo("-1");
        }
    }

    private static Histogram requestHistogram(String name, String request) {
        return KafkaYammerMetrics.defaultRegistry().allMetrics().entrySet().stream()
                .filter(e -> e.getKey().getMBeanName().equals(
                        "kafka.network:type=RequestMetrics,name=" + name + ",request=" + request))
                .map(e -> (Histogram) e.getValue())
                .findFirst().orElseThrow();
    }

    private static Object sampleOf(Histogram histogram) {
        try {
            Field sample = Histogram.class.getDeclaredField("sample");
            sample.setAccessible(true);
            return sample.get(histogram);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
