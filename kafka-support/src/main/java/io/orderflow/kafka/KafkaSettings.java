package io.orderflow.kafka;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Where the Kafka cluster is ({@code orderflow.kafka.bootstrap-servers}, from {@code KAFKA_BOOTSTRAP_SERVERS}): the one
 * Kafka settings record of the services. A service enables it with
 * {@code @EnableConfigurationProperties(KafkaSettings.class)}.
 */
@ConfigurationProperties("orderflow.kafka")
public record KafkaSettings(String bootstrapServers) {

    public KafkaSettings {
        bootstrapServers = bootstrapServers == null || bootstrapServers.isBlank() ? "localhost:9092" : bootstrapServers;
    }
}
