package io.orderflow.gateway.metrics;

import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.observability.BrokerReachability;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The gateway's readiness check beyond Spring Boot's own: the {@code kafka} check (a broker answers). */
@Configuration(proxyBeanMethods = false)
class GatewayObservability {

    @Bean
    BrokerReachability kafkaHealthIndicator(KafkaSettings kafka) {
        return new BrokerReachability(kafka.bootstrapServers());
    }
}
