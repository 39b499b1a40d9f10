package io.orderflow.gateway.kafka;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Where the Kafka cluster is ({@code orderflow.kafka.bootstrap-servers}). */
@ConfigurationProperties("orderflow.kafka")
public record KafkaSettings(String bootstrapServers) {

    public KafkaSettings {
        bootstrapServers = bootstrapServers == null || bootstrapServers.isBlank() ? "localhost:9092" : bootstrapServers;
    }
}
