package io.orderflow.kafka;

import java.util.Optional;
import org.springframework.context.SmartLifecycle;

/**
 * Checks, before anything of a service reads or writes Kafka, that the cluster answers with the configured client
 * properties and holds every topic of the registry with consistent partition counts: a missing topic or a wrong
 * password stops the start with a message saying what is wrong ({@link TopicProvisioner#verify}), instead of a reader
 * waiting for the topic or a stream thread retrying. A service imports it ({@code @Import(TopicCheck.class)}).
 */
public class TopicCheck implements SmartLifecycle {

    private final KafkaSettings kafka;
    private volatile boolean running;

    public TopicCheck(KafkaSettings kafka) {
        this.kafka = kafka;
    }

    @Override
    public void start() {
        TopicProvisioner.verify(kafka, Optional.empty());
        running = true;
    }

    @Override
    public void stop() {
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** First of every phase: the topic readers start in phase 0, the listener containers and the web server later. */
    @Override
    public int getPhase() {
        return Integer.MIN_VALUE;
    }
}
