package io.orderflow.kafka.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.FormerMembers;
import io.orderflow.kafka.testing.TestKafka;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * A process back under a new instance id finds its old static member in the group, which holds the group's rebalance
 * until that member's session ends: the old member is recognised by the process's own client id and removed, and the
 * process gets its partitions; another process's member is never taken for a former one.
 */
class FormerMembersTest {

    @Test
    void theOldMemberOfThisProcessIsRemovedAndThePartitionsComeBackWhileOtherProcessesAreLeftAlone() throws Exception {
        String bootstrap = TestKafka.bootstrapServers();
        String topic = "former-members-" + UUID.randomUUID();
        String group = "former-members-" + UUID.randomUUID();
        String clientId = group + "-5f41e3a1-StreamThread-1-consumer";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();

            // given the process's member under its old id, gone without leaving, with a session of five minutes
            try (KafkaConsumer<String, String> old = consumer(bootstrap, group, clientId, "host-old-1")) {
                old.subscribe(List.of(topic));
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    old.poll(Duration.ofMillis(100));
                    return !old.assignment().isEmpty();
                });
                old.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP));
            }

            // when the process comes back under a new id, the group waits for the old member
            try (KafkaConsumer<String, String> back = consumer(bootstrap, group, clientId, "host-new-1")) {
                back.subscribe(List.of(topic));
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    back.poll(Duration.ofMillis(100));
                    return members(admin, group).size() == 2;
                });
                List<MemberDescription> members = members(admin, group);
                assertThat(FormerMembers.of(members, List.of(group + "-0a0b0c0d-StreamThread-1-consumer"), "host-new"))
                        .as("another process's members").isEmpty();
                List<MemberDescription> former = FormerMembers.of(members, List.of(clientId), "host-new");
                assertThat(former).extracting(member -> member.groupInstanceId().orElseThrow())
                        .containsExactly("host-old-1");

                // then removing it lets the group assign every partition to the process as it is now
                assertThat(FormerMembers.remove(admin, group, former)).containsExactly("host-old-1");
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    back.poll(Duration.ofMillis(100));
                    return back.assignment().size() == 2;
                });
                assertThat(members(admin, group)).extracting(member -> member.groupInstanceId().orElseThrow())
                        .containsExactly("host-new-1");
            }
        }
    }

    /** A consumer that joins {@code group} as a static member with a session of five minutes. */
    static KafkaConsumer<String, String> consumer(String bootstrap, String group, String clientId,
                                                          String instanceId) {
        return new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, group,
                ConsumerConfig.CLIENT_ID_CONFIG, clientId,
                ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId,
                ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, (int) Duration.ofMinutes(5).toMillis(),
                ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, (int) Duration.ofMinutes(5).toMillis()),
                new StringDeserializer(), new StringDeserializer());
    }

    private static List<MemberDescription> members(Admin admin, String group) throws Exception {
        return List.copyOf(admin.describeConsumerGroups(List.of(group)).all().get().get(group).members());
    }
}
