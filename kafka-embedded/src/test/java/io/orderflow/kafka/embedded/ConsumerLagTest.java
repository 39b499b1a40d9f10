package io.orderflow.kafka.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.observability.ConsumerLag;
import io.orderflow.kafka.testing.TestKafka;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The consumer lag gauge on a real broker: a group with committed offsets and no consumer running (the case a
 * consumer's own lag metric cannot show) is as many records behind as the topic's partitions hold past its offsets,
 * summed per topic, and follows new records and new commits.
 */
@Tag("docker")
class ConsumerLagTest {

    @Test
    void a_stopped_group_is_as_far_behind_as_the_records_past_its_committed_offsets() throws Exception {
        String bootstrap = TestKafka.containerBootstrapServers();
        String topic = "lag-" + UUID.randomUUID();
        String group = "lag-group-" + UUID.randomUUID();
        TopicPartition first = new TopicPartition(topic, 0);
        TopicPartition second = new TopicPartition(topic, 1);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        // computed every 200 ms instead of every 5 s: each step below waits for the next computation
        ConsumerLag lag = new ConsumerLag(new KafkaSettings(bootstrap), registry, Duration.ofMillis(200));
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
             KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                     ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), new StringSerializer(),
                     new StringSerializer())) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            send(producer, topic, 0, 10);
            send(producer, topic, 1, 5);
            commit(admin, group, Map.of(first, 4L, second, 5L));

            lag.afterPropertiesSet();

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(records(registry, group, topic))
                    .as("6 past offset 4 of partition 0, none past offset 5 of partition 1").isEqualTo(6.0));

            send(producer, topic, 1, 3);
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(records(registry, group, topic))
                    .isEqualTo(9.0));

            commit(admin, group, Map.of(first, 10L, second, 8L));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(records(registry, group, topic))
                    .as("caught up").isEqualTo(0.0));
        } finally {
            lag.destroy();
        }
    }

    private static void send(KafkaProducer<String, String> producer, String topic, int partition, int records)
            throws Exception {
        for (int i = 0; i < records; i++) {
            producer.send(new ProducerRecord<>(topic, partition, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
        }
    }

    private static void commit(Admin admin, String group, Map<TopicPartition, Long> offsets) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> committed = new java.util.HashMap<>();
        offsets.forEach((partition, offset) -> committed.put(partition, new OffsetAndMetadata(offset)));
        admin.alterConsumerGroupOffsets(group, committed).all().get(30, TimeUnit.SECONDS);
    }

    private static double records(SimpleMeterRegistry registry, String group, String topic) {
        Gauge gauge = registry.find(ConsumerLag.LAG).tags("group", group, "topic", topic).gauge();
        return gauge == null ? -1 : gauge.value();
    }
}
