package io.orderflow.kafka.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.PreviousRun;
import io.orderflow.kafka.testing.TestKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Before a Streams app starts, what its previous run from the same state directory left in the cluster is ended: a
 * transaction left open with offsets committed in it (which holds the group's offsets unstable) and a static member
 * under an earlier instance id (which the group waits for). The committed offsets stay what they were.
 */
class PreviousRunTest {

    @TempDir
    Path stateDir;

    @Test
    @SuppressWarnings("removal") // a group's metadata for sendOffsetsToTransaction outside a consumer
    void aDeadRunsOpenTransactionAndFormerMemberAreEndedAndTheCommittedOffsetsStayAsTheyWere() throws Exception {
        String bootstrap = TestKafka.bootstrapServers();
        String group = "previous-run-" + UUID.randomUUID();
        String processId = UUID.randomUUID().toString();
        String topic = group + "-input";
        TopicPartition partition = new TopicPartition(topic, 0);
        Files.createDirectories(stateDir.resolve(group));
        Files.writeString(stateDir.resolve(group).resolve("kafka-streams-process-metadata"),
                "{\"processId\":\"" + processId + "\"}");
        String transactionalId = group + "-" + processId + "-1";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();

            // given a run that committed offset 7, then died inside a transaction that carried offset 9 ...
            KafkaProducer<String, String> dead = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId), new StringSerializer(),
                    new StringSerializer());
            dead.initTransactions();
            dead.beginTransaction();
            dead.sendOffsetsToTransaction(Map.of(partition, new OffsetAndMetadata(7)), new ConsumerGroupMetadata(group));
            dead.commitTransaction();
            dead.beginTransaction();
            dead.sendOffsetsToTransaction(Map.of(partition, new OffsetAndMetadata(9)), new ConsumerGroupMetadata(group));
            dead.close(Duration.ZERO); // no end marker: the transaction stays open until its timeout (a minute)
            assertThat(state(admin, transactionalId)).isEqualTo(TransactionState.ONGOING);
            assertThat(stableOffsets(admin, group, partition)).as("unstable while the transaction is open").isEmpty();

            // ... and whose static member, under the instance id the process had then, never left the group
            try (KafkaConsumer<String, String> member = FormerMembersTest.consumer(bootstrap, group,
                    group + "-" + processId + "-StreamThread-1-consumer", "old-host-1")) {
                member.subscribe(List.of(topic));
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    member.poll(Duration.ofMillis(100));
                    return !member.assignment().isEmpty();
                });
                member.close(CloseOptions.groupMembershipOperation(
                        CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP));
            }

            // when the app is about to start again, under the instance id it has now
            Properties properties = new Properties();
            properties.put(StreamsConfig.APPLICATION_ID_CONFIG, group);
            properties.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            properties.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
            properties.put(StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), "new-host");
            PreviousRun.Settled settled = PreviousRun.settle("test-app", properties);

            // then the open transaction is ended, the former member gone, and offset 7 reads stable
            assertThat(settled.transactionalIds()).containsExactly(transactionalId);
            assertThat(settled.formerMembers()).containsExactly("old-host-1");
            assertThat(state(admin, transactionalId)).isNotEqualTo(TransactionState.ONGOING);
            assertThat(admin.describeConsumerGroups(List.of(group)).all().get().get(group).members()).isEmpty();
            await().atMost(Duration.ofSeconds(30)).until(() -> !stableOffsets(admin, group, partition).isEmpty());
            assertThat(stableOffsets(admin, group, partition).get(partition).offset()).isEqualTo(7);
        }
    }

    @Test
    void aFirstStartFindsNothingToSettle() {
        Properties properties = new Properties();
        properties.put(StreamsConfig.APPLICATION_ID_CONFIG, "previous-run-" + UUID.randomUUID());
        properties.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers());
        properties.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());

        PreviousRun.Settled settled = PreviousRun.settle("test-app", properties);

        assertThat(settled.transactionalIds()).isEmpty();
        assertThat(settled.formerMembers()).isEmpty();
    }

    private static TransactionState state(Admin admin, String transactionalId) throws Exception {
        return admin.describeTransactions(List.of(transactionalId)).all().get().get(transactionalId).state();
    }

    /** The group's committed offset of {@code partition} if it reads stable (the admin client leaves it out if not). */
    private static Map<TopicPartition, OffsetAndMetadata> stableOffsets(Admin admin, String group,
                                                                        TopicPartition partition) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = new java.util.HashMap<>(admin.listConsumerGroupOffsets(
                        Map.of(group, new ListConsumerGroupOffsetsSpec().topicPartitions(List.of(partition))),
                        new ListConsumerGroupOffsetsOptions().requireStable(true).timeoutMs(3_000))
                .partitionsToOffsetAndMetadata(group).get());
        offsets.values().removeIf(java.util.Objects::isNull);
        return offsets;
    }
}
