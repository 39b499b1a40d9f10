package io.orderflow.kafka.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.StartedStreams;
import io.orderflow.kafka.StreamsApp;
import io.orderflow.kafka.StreamsProgress;
import io.orderflow.kafka.testing.TestKafka;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.junit.jupiter.api.Test;

/**
 * A Streams app whose group has a committed offset inside a transaction that another producer left open cannot start
 * its tasks (the offset is unstable until that transaction ends). What {@link StreamsProgress} then reports names the
 * partition and the open transaction; once the transaction is aborted, the app runs.
 */
class StreamsProgressStallTest {

    @Test
    void a_task_held_by_an_open_transaction_is_reported_with_its_partition_and_the_transaction() throws Exception {
        String bootstrap = TestKafka.bootstrapServers();
        String in = "stall-in-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(in, 1, (short) 1))).all().get();
        }
        String applicationId = TestKafka.uniqueApplicationId("stall");
        String stuck = "stuck-" + UUID.randomUUID();
        TopicPartition input = new TopicPartition(in, 0);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, stuck,
                ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 300_000), new StringSerializer(), new StringSerializer())) {
            // given: an offset of the app's group committed in a transaction that stays open
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(in, "order-a", "x")).get();
            producer.sendOffsetsToTransaction(Map.of(input, new OffsetAndMetadata(0)),
                    new ConsumerGroupMetadata(applicationId));

            Properties props = StreamsApp.properties(applicationId, new KafkaSettings(bootstrap),
                    TestKafka.uniqueStateDir("stall").toString(), 20);
            StreamsBuilder builder = new StreamsBuilder();
            builder.stream(in, Consumed.with(Serdes.String(), Serdes.String())).groupByKey()
                    .count(Materialized.as("counts"));
            KafkaStreams app = new KafkaStreams(builder.build(), props);
            StreamsProgress progress = new StreamsProgress("stall-test", props, System::currentTimeMillis);
            try {
                app.start();
                // when: its tasks wait; then: the report names the partition and the transaction
                await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1))
                        .untilAsserted(() -> assertThat(progress.whatItWaitsFor(app))
                                .contains("the committed offsets of [" + input + "] are unstable")
                                .contains(stuck).contains("Ongoing"));
                assertThat(app.state()).isEqualTo(KafkaStreams.State.REBALANCING);
                producer.abortTransaction();
                await().atMost(Duration.ofSeconds(60)).until(() -> app.state() == KafkaStreams.State.RUNNING);
            } finally {
                new StartedStreams(app, progress).close(Duration.ofSeconds(30));
            }
        }
    }
}
