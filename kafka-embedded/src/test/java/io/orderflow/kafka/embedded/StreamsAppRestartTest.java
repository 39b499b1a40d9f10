package io.orderflow.kafka.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.StartedStreams;
import io.orderflow.kafka.StreamsApp;
import io.orderflow.kafka.testing.TestKafka;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.Test;

/**
 * A Streams app configured by {@link StreamsApp#properties} on a real broker, stopped the way a crash stops it: its
 * member stays in the group. Started again on the same state directory, it works again within seconds, long before
 * the member's session would have timed out, and its stores hold what they held.
 */
class StreamsAppRestartTest {

    /** Longer than the test waits: only a rejoin under the same instance id can be back in time. */
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(60);

    @Test
    void an_instance_that_stopped_without_leaving_its_group_is_back_within_seconds() throws Exception {
        String bootstrap = TestKafka.bootstrapServers();
        String in = "restart-in-" + UUID.randomUUID();
        String out = "restart-out-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(in, 3, (short) 1), new NewTopic(out, 3, (short) 1))).all().get();
        }
        Properties props = StreamsApp.properties(TestKafka.uniqueApplicationId("restart"),
                new KafkaSettings(bootstrap).withStreamsMembership(null, 0, SESSION_TIMEOUT),
                TestKafka.uniqueStateDir("restart").toString(), 20);
        Map<String, Long> counts = new ConcurrentHashMap<>();
        Thread reader = Thread.ofVirtual().start(() -> read(bootstrap, out, counts));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                new StringSerializer(), new StringSerializer())) {
            StartedStreams first = StreamsApp.start("first", counting(in, out), props);
            producer.send(new ProducerRecord<>(in, "order-a", "x")).get();
            await().atMost(Duration.ofSeconds(60)).until(() -> Long.valueOf(1).equals(counts.get("order-a")));
            first.progress().close();
            first.streams().close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
                    .withTimeout(Duration.ofSeconds(30)));

            long restarted = System.nanoTime();
            StartedStreams second = StreamsApp.start("second", counting(in, out), props);
            try {
                producer.send(new ProducerRecord<>(in, "order-a", "y")).get();
                await().atMost(Duration.ofSeconds(25)).until(() -> Long.valueOf(2).equals(counts.get("order-a")));
                assertThat(Duration.ofNanos(System.nanoTime() - restarted)).isLessThan(SESSION_TIMEOUT);
            } finally {
                second.close(Duration.ofSeconds(30));
            }
        } finally {
            reader.interrupt();
        }
    }

    private static Topology counting(String in, String out) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(in, Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey()
                .count(Materialized.as("counts"))
                .toStream()
                .to(out, Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    private static void read(String bootstrap, String topic, Map<String, Long> counts) {
        try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "reader-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new StringDeserializer(), new LongDeserializer())) {
            consumer.subscribe(List.of(topic));
            while (!Thread.currentThread().isInterrupted()) {
                consumer.poll(Duration.ofMillis(100)).forEach(record -> counts.put(record.key(), record.value()));
            }
        } catch (org.apache.kafka.common.errors.InterruptException e) {
            Thread.currentThread().interrupt();
        }
    }
}
