package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.dispatcher.dispatch.DispatcherTopics;
import io.orderflow.schemas.topics.Topics;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The standalone system creates every topic with the partitions its settings table documents (README, "Settings":
 * {@code TOPIC_PARTITIONS}, "standalone: 3"), the webhook dispatcher's own attempts, retry and dead-letter topics
 * included.
 */
@ExtendWith(SharedStandalone.class)
class StandaloneTopicsTest {

    @Test
    void everyTopicOfTheSystemHasThreePartitions(StandaloneSystem system)
            throws ExecutionException, InterruptedException {
        try (Admin admin = Admin.create(Map.<String, Object>of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, system.bootstrapServers()))) {
            Map<String, TopicDescription> topics = admin.describeTopics(admin.listTopics().names().get())
                    .allTopicNames().get();
            Map<String, Integer> partitions = topics.values().stream()
                    .collect(Collectors.toMap(TopicDescription::name, topic -> topic.partitions().size()));

            assertThat(partitions).containsKeys(DispatcherTopics.DELIVERY_ATTEMPTS,
                    DispatcherTopics.DELIVERY_ATTEMPTS + "-retry-0", DispatcherTopics.DELIVERY_ATTEMPTS + "-dlt",
                    Topics.ORDER_COMMANDS.name(), Topics.ORDER_EVENTS.name());
            assertThat(partitions).allSatisfy((topic, count) -> assertThat(count).as(topic).isEqualTo(3));
        }
    }
}
