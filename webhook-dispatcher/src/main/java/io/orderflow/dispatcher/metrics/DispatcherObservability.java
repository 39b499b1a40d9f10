package io.orderflow.dispatcher.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.dispatcher.deliveries.DeliveryMeters;
import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.observability.BrokerReachability;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The dispatcher's readiness check beyond Spring Boot's own, the {@code kafka} check (a broker answers), and its
 * delivery counters ({@link DeliveryMeters}). Its Kafka consumers and producers are Spring Boot's, whose factories
 * carry Micrometer's Kafka client meters already.
 */
@Configuration(proxyBeanMethods = false)
class DispatcherObservability {

    @Bean
    BrokerReachability kafkaHealthIndicator(KafkaSettings kafka) {
        return new BrokerReachability(kafka.bootstrapServers());
    }

    @Bean
    DeliveryMeters deliveryMeters(MeterRegistry registry) {
        return new DeliveryMeters(registry);
    }
}
