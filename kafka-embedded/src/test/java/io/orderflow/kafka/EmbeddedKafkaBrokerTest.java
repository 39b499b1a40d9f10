package io.orderflow.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.topics.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
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
}
