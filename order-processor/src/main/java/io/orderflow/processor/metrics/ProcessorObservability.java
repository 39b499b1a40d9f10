package io.orderflow.processor.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.kafka.observability.BrokerReachability;
import io.orderflow.kafka.observability.StreamsMeters;
import io.orderflow.kafka.observability.StreamsReadiness;
import io.orderflow.processor.ProcessorProperties;
import io.orderflow.processor.order.OrderApplier;
import io.orderflow.processor.streams.OrderAgent;
import io.orderflow.processor.streams.OrderStreams;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The processor's meters and readiness checks. Readiness ({@code /actuator/health/readiness}) includes the
 * {@code streams} check (the order agent's Kafka Streams application is {@code RUNNING}) and the {@code kafka} check
 * (a broker answers); see {@code order-processor.yaml}.
 */
@Configuration(proxyBeanMethods = false)
class ProcessorObservability {

    @Bean
    HealthIndicator streamsHealthIndicator(OrderStreams streams) {
        return new StreamsReadiness(() -> streams.started().orElse(null));
    }

    @Bean
    BrokerReachability kafkaHealthIndicator(ProcessorProperties settings) {
        return new BrokerReachability(settings.kafka());
    }

    @Bean
    StreamsMeters orderStreamsMeters(OrderStreams streams, MeterRegistry registry, ProcessorProperties settings) {
        return new StreamsMeters(() -> streams.started().orElse(null), registry, settings.streams().applicationId());
    }

    @Bean
    InFlightMeters inFlightMeters(OrderStreams streams, MeterRegistry registry) {
        return new InFlightMeters(streams::streams, registry);
    }

    @Bean
    OrderMeters orderMeters(MeterRegistry registry) {
        return new OrderMeters(registry);
    }

    /** The facts the order agent applies, counted on the way ({@link OrderMeters}). */
    @Bean
    OrderAgent.Applier observedApplier(OrderMeters meters) {
        return meters.observing(OrderApplier::applyAll);
    }
}
