package io.orderflow.kafka.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.TopicProvisioner;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.topics.Topic;
import io.orderflow.schemas.topics.Topics;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;

/**
 * Provisioning on a cluster of its own (the check looks at every topic of the registry): the check before a service
 * starts names what is missing or wrong, and the topics created carry {@code TOPIC_MIN_ISR}.
 */
class TopicProvisionerTest {

    @Test
    void theCheckNamesMissingTopicsAndWrongPartitionCountsAndProvisioningFixesTheMissing() throws Exception {
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(TestKafka.uniqueStateDir("provisioner"), 0);
             Admin admin = Admin.create(Map.of(
                     AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            KafkaSettings kafka = new KafkaSettings(broker.bootstrapServers(), null, null, (short) 1, 1);

            assertThatThrownBy(() -> TopicProvisioner.verify(kafka, Optional.empty()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("missing " + Topics.ALL.stream().map(Topic::name).toList())
                    .hasMessageContaining("io.orderflow.kafka.TopicProvisioner");

            admin.createTopics(List.of(new NewTopic(Topics.FLOWS.name(), 1, (short) 1))).all().get();
            TopicProvisioner.createMissing(kafka, 2);

            assertThatThrownBy(() -> TopicProvisioner.verify(kafka, Optional.empty()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("expected 2 partitions but found {flows=1}")
                    .hasMessageNotContaining("missing");
            assertThatThrownBy(() -> TopicProvisioner.verify(kafka, Optional.of(1)))
                    .hasMessageContaining("expected 1 partitions but found {")
                    .hasMessageContaining(Topics.ORDER_COMMANDS.name() + "=2");

            ConfigResource commands = new ConfigResource(ConfigResource.Type.TOPIC, Topics.ORDER_COMMANDS.name());
            ConfigEntry minIsr = admin.describeConfigs(List.of(commands)).all().get().get(commands)
                    .get("min.insync.replicas");
            assertThat(minIsr.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
            assertThat(minIsr.value()).isEqualTo("1");
        }
    }
}
