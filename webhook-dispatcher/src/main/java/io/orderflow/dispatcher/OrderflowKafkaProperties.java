package io.orderflow.dispatcher;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/** Where the Kafka cluster is ({@code orderflow.kafka.*}, shared by every service). */
@ConfigurationProperties("orderflow.kafka")
public record OrderflowKafkaProperties(@DefaultValue("localhost:9092") String bootstrapServers) {
}
