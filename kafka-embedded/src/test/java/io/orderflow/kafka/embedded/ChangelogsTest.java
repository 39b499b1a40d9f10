package io.orderflow.kafka.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.Changelogs;
import io.orderflow.kafka.testing.TestKafka;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/**
 * Changelogs created before their segments were sized (the broker's 1 GiB, 7 days) get the sizes the log cleaner
 * needs at the next start of their app, and nothing else changes: other apps' changelogs, the app's other topics.
 */
class ChangelogsTest {

    @Test
    void anAppsExistingChangelogsGetSegmentsTheCleanerCanCompactAndOtherTopicsAreLeftAlone() throws Exception {
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(TestKafka.uniqueStateDir("changelogs"), 0);
             Admin admin = Admin.create(Map.of(
                     AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            List<String> topics = List.of("shop-orders-changelog", "shop-index-rows-changelog", "shop-orders",
                    "shopfront-orders-changelog");
            admin.createTopics(topics.stream().map(name -> new NewTopic(name, 1, (short) 1)).toList()).all().get();
            Map<String, Object> properties = Map.of(StreamsConfig.APPLICATION_ID_CONFIG, "shop",
                    StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                    StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);

            assertThat(Changelogs.align(properties))
                    .containsExactly("shop-index-rows-changelog", "shop-orders-changelog");

            // the broker applies a config change from its metadata log: awaited, as a client sees it
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(segments(admin, topics, TopicConfig.SEGMENT_BYTES_CONFIG))
                        .containsEntry("shop-orders-changelog", String.valueOf(16 * 1024 * 1024))
                        .containsEntry("shop-index-rows-changelog", String.valueOf(16 * 1024 * 1024))
                        .containsEntry("shop-orders", String.valueOf(1024 * 1024 * 1024))
                        .containsEntry("shopfront-orders-changelog", String.valueOf(1024 * 1024 * 1024));
                assertThat(segments(admin, topics, TopicConfig.SEGMENT_MS_CONFIG))
                        .containsEntry("shop-orders-changelog", "3600000")
                        .containsEntry("shop-orders", "604800000");
            });
            assertThat(Changelogs.align(properties)).as("a second start finds them set").isEmpty();
        }
    }

    private static Map<String, String> segments(Admin admin, List<String> topics, String setting) throws Exception {
        Map<ConfigResource, Config> configs = admin.describeConfigs(topics.stream()
                .map(name -> new ConfigResource(ConfigResource.Type.TOPIC, name)).toList()).all().get();
        return configs.entrySet().stream()
                .collect(Collectors.toMap(entry -> entry.getKey().name(), entry -> entry.getValue().get(setting).value()));
    }
}
