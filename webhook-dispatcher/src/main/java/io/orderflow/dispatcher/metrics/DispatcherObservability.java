package io.orderflow.dispatcher.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.orderflow.dispatcher.subscriptions.Subscription;
import io.orderflow.dispatcher.deliveries.SubscriptionHealth;
import io.orderflow.dispatcher.subscriptions.SubscriptionStore;
import io.orderflow.dispatcher.deliveries.DeliveryMeters;
import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.observability.BrokerReachability;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The dispatcher's readiness check beyond Spring Boot's own, the {@code kafka} check (a broker answers), its
 * delivery counters ({@link DeliveryMeters}) and the gauge of failing subscriptions ({@link SubscriptionHealth}). Its
 * Kafka consumers and producers are Spring Boot's, whose factories carry Micrometer's Kafka client meters already.
 */
@Configuration(proxyBeanMethods = false)
class DispatcherObservability {

    @Bean
    BrokerReachability kafkaHealthIndicator(KafkaSettings kafka) {
        return new BrokerReachability(kafka);
    }

    @Bean
    DeliveryMeters deliveryMeters(MeterRegistry registry) {
        return new DeliveryMeters(registry);
    }

    /** {@code orderflow_webhook_subscriptions_failing}: subscriptions whose last deliveries all failed. */
    @Bean
    MeterBinder failingSubscriptions(SubscriptionHealth health, SubscriptionStore subscriptions) {
        return registry -> Gauge.builder("orderflow.webhook.subscriptions.failing",
                        () -> health.failing(subscriptions.all().stream().map(Subscription::id).toList()))
                .description("Webhook subscriptions whose last deliveries all failed (WEBHOOK_FAILING_AFTER)")
                .register(registry);
    }
}
