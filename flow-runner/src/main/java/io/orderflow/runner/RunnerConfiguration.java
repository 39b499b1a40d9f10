package io.orderflow.runner;

import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.TopicCheck;
import io.orderflow.kafka.clock.ClockFollower;
import io.orderflow.runner.connectors.Connectors;
import io.orderflow.runner.flows.FlowPublisher;
import io.orderflow.runner.flows.FlowValidator;
import io.orderflow.runner.money.Money;
import io.orderflow.runner.nodes.NodeCatalogue;
import io.orderflow.runner.replenishment.Replenishment;
import io.orderflow.runner.run.RunDecider;
import io.orderflow.runner.run.RunSettings;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;

/** Wires the plain-Java decider, catalogue and connectors; the Streams lifecycle lives in {@link RunnerStreams}. */
@Configuration(proxyBeanMethods = false)
@EnableScheduling
public class RunnerConfiguration {

    /**
     * With {@code CLOCK_CONTROL=true}: the service clock, kept at the {@code clock} topic's setting. A lifecycle of
     * phase 0, so it has read the topic before the streams start.
     */
    @Bean
    @ConditionalOnProperty(name = "orderflow.clock.control", havingValue = "true")
    ClockFollower clockFollower(RunnerProperties properties) {
        return new ClockFollower(properties.kafka(), "flow-runner");
    }

    /**
     * The time the runner decides by (sleeps, retry backoff, the daily replenishment, every time it reports): real
     * time, or the service clock under clock control.
     */
    @Bean
    Clock runnerClock(ObjectProvider<ClockFollower> clockFollower) {
        ClockFollower follower = clockFollower.getIfAvailable();
        return follower == null ? Clock.systemUTC() : follower.clock();
    }

    /** Where the cluster is, for the parts of the runner that hold no other settings (the replenishment job). */
    @Bean
    KafkaSettings kafkaSettings(RunnerProperties properties) {
        return properties.kafka();
    }

    @Bean
    NodeCatalogue nodeCatalogue() {
        return NodeCatalogue.standard();
    }

    @Bean
    Connectors connectors() {
        return Connectors.mock();
    }

    @Bean
    Replenishment replenishment(Connectors connectors) {
        return new Replenishment(connectors.inventory());
    }

    @Bean
    RunDecider runDecider(NodeCatalogue catalogue, Connectors connectors, Clock runnerClock,
                        RunnerProperties properties) {
        RunnerProperties.Runner runner = properties.runner();
        return new RunDecider(catalogue, connectors, Money.seeded(), runnerClock,
                new RunSettings(properties.timeScale(), runner.maxSteps(), runner.stepsPerTask()));
    }

    /** Stops the start with a clear message when the cluster cannot be reached or a topic is missing. */
    @Bean
    TopicCheck topicCheck(RunnerProperties properties) {
        return new TopicCheck(properties.kafka());
    }

    @Bean
    FlowPublisher flowPublisher(NodeCatalogue catalogue, Clock runnerClock, RunnerProperties properties) {
        return new FlowPublisher(properties.kafka(), new FlowValidator(catalogue), runnerClock);
    }
}
