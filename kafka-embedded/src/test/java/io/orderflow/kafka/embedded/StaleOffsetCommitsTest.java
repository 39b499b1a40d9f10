package io.orderflow.kafka.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.StaleOffsetCommits;
import io.orderflow.kafka.testing.TestKafka;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The release of offsets a group coordinator keeps unstable after their transaction ended: it never touches an open
 * transaction of the app's own ids (the transaction coordinator ends those), and when it acts it changes no committed
 * offset and fences the app's producer, which then starts again under a new epoch.
 */
class StaleOffsetCommitsTest {

    @Test
    void a_thread_producers_transactional_id_is_read_from_its_client_id() {
        assertThat(StaleOffsetCommits.transactionalId(
                "orderflow-order-processor-58740f5c-0802-4405-b9fe-87855a823607-StreamThread-1-producer"))
                .contains("orderflow-order-processor-58740f5c-0802-4405-b9fe-87855a823607-1");
        assertThat(StaleOffsetCommits.transactionalId("orderflow-order-processor-admin")).isEmpty();
    }

    @Test
    void an_open_transaction_is_left_to_its_coordinator_and_an_ended_ones_offsets_are_released_unchanged()
            throws Exception {
        String bootstrap = TestKafka.bootstrapServers();
        String topic = "stale-offsets-" + UUID.randomUUID();
        String group = "stale-offsets-group-" + UUID.randomUUID();
        String transactionalId = group + "-process-1";
        TopicPartition partition = new TopicPartition(topic, 0);
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
             KafkaProducer<String, String> app = new KafkaProducer<>(Map.of(
                     ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                     ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId), new StringSerializer(),
                     new StringSerializer())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
            app.initTransactions();
            app.beginTransaction();
            app.sendOffsetsToTransaction(Map.of(partition, new OffsetAndMetadata(7)), new ConsumerGroupMetadata(group));
            app.commitTransaction();

            // an open transaction of the app's own id: not released
            app.beginTransaction();
            app.sendOffsetsToTransaction(Map.of(partition, new OffsetAndMetadata(9)), new ConsumerGroupMetadata(group));
            assertThat(StaleOffsetCommits.release(admin, config, group, List.of(transactionalId), List.of(partition)))
                    .isFalse();
            assertThat(state(admin, transactionalId)).isEqualTo(TransactionState.ONGOING);
            app.abortTransaction();
            await().atMost(Duration.ofSeconds(30)).until(() -> state(admin, transactionalId)
                    == TransactionState.COMPLETE_ABORT); // the abort's markers are written after its answer

            // none open: released, the committed offset unchanged, the app's producer fenced
            assertThat(StaleOffsetCommits.release(admin, config, group, List.of(transactionalId), List.of(partition)))
                    .isTrue();
            assertThat(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().get(partition)
                    .offset()).isEqualTo(7);
            assertThat(state(admin, transactionalId)).isEqualTo(TransactionState.COMPLETE_ABORT);
            try {
                app.beginTransaction();
                app.sendOffsetsToTransaction(Map.of(partition, new OffsetAndMetadata(8)),
                        new ConsumerGroupMetadata(group));
                app.commitTransaction();
                throw new AssertionError("the app's producer was not fenced");
            } catch (ProducerFencedException | org.apache.kafka.common.errors.InvalidProducerEpochException fenced) {
                // expected: Streams takes it as a migrated task and starts a new producer
            }
        }
    }

    private static TransactionState state(Admin admin, String transactionalId) throws Exception {
        return admin.describeTransactions(List.of(transactionalId)).all().get().get(transactionalId).state();
    }
}
