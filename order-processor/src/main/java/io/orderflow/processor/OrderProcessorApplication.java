package io.orderflow.processor;

import io.orderflow.internal.InternalApiGuard;
import io.orderflow.kafka.TopicCheck;
import io.orderflow.kafka.clock.ClockFollower;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import java.time.Clock;
import java.util.Map;

/**
 * The order's agent: a Kafka Streams application plus its internal query API, guarded by {@link InternalApiGuard}.
 * Settings: {@code order-processor.yaml}.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
@Import(InternalApiGuard.class)
public class OrderProcessorApplication {

    public static void main(String[] args) {
        application().run(args);
    }

    /** The application with its config name set, for {@code main} and for tests. */
    public static SpringApplication application() {
        SpringApplication app = new SpringApplication(OrderProcessorApplication.class);
        app.setDefaultProperties(Map.of("spring.config.name", "order-processor"));
        return app;
    }

    /** Stops the start with a clear message when the cluster cannot be reached or a topic is missing. */
    @Bean
    TopicCheck topicCheck(ProcessorProperties properties) {
        return new TopicCheck(properties.kafka());
    }

    /**
     * With {@code CLOCK_CONTROL=true}: the service clock, kept at the {@code clock} topic's setting. A lifecycle of
     * phase 0, so it has read the topic before the streams start.
     */
    @Bean
    @ConditionalOnProperty(name = "orderflow.clock.control", havingValue = "true")
    ClockFollower clockFollower(ProcessorProperties properties) {
        return new ClockFollower(properties.kafka(), "order-processor");
    }

    /**
     * The time the agent decides by (deadlines, escalations, polls, retention, every time it records): real time, or
     * the service clock under clock control.
     */
    @Bean
    Clock orderClock(ObjectProvider<ClockFollower> clockFollower) {
        ClockFollower follower = clockFollower.getIfAvailable();
        return follower == null ? Clock.systemUTC() : follower.clock();
    }
}
