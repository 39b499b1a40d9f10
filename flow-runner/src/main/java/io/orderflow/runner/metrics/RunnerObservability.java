package io.orderflow.runner.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.kafka.observability.BrokerReachability;
import io.orderflow.kafka.observability.StreamsMeters;
import io.orderflow.kafka.observability.StreamsReadiness;
import io.orderflow.runner.RunnerProperties;
import io.orderflow.runner.RunnerStreams;
import io.orderflow.runner.nodes.NodeCatalogue;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The runner's meters and readiness checks. Readiness ({@code /actuator/health/readiness}) includes the
 * {@code streams} check (the runner's Kafka Streams application is {@code RUNNING}) and the {@code kafka} check (a
 * broker answers); see {@code flow-runner.yaml}.
 */
@Configuration(proxyBeanMethods = false)
class RunnerObservability {

    @Bean
    HealthIndicator streamsHealthIndicator(RunnerStreams streams) {
        return new StreamsReadiness(streams::started);
    }

    @Bean
    BrokerReachability kafkaHealthIndicator(RunnerProperties settings) {
        return new BrokerReachability(settings.kafka());
    }

    /** The catalogue's nodes, counted ({@link NodeMeters}). */
    @Bean
    static BeanPostProcessor countedNodes(ObjectProvider<MeterRegistry> registry) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String name) {
                return bean instanceof NodeCatalogue catalogue
                        ? NodeMeters.counted(catalogue, registry.getObject()) : bean;
            }
        };
    }

    @Bean
    StreamsMeters runnerStreamsMeters(RunnerStreams streams, MeterRegistry registry, RunnerProperties settings) {
        String applicationId = settings.streams() == null ? "orderflow-flow-runner"
                : settings.streams().applicationId();
        return new StreamsMeters(streams::started, registry, applicationId);
    }
}
