package io.orderflow.gateway.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.observability.BrokerReachability;
import io.orderflow.kafka.observability.ConsumerLag;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The gateway's readiness check beyond Spring Boot's own, the {@code kafka} check (a broker answers), and the consumer
 * lag of every group on the cluster ({@link ConsumerLag}): one service computes it for all, so the lag of a stopped
 * service is still measured.
 */
@Configuration(proxyBeanMethods = false)
class GatewayObservability {

    @Bean
    BrokerReachability kafkaHealthIndicator(KafkaSettings kafka) {
        return new BrokerReachability(kafka);
    }

    @Bean
    ConsumerLag consumerLag(KafkaSettings kafka, MeterRegistry registry) {
        return new ConsumerLag(kafka, registry);
    }
}
