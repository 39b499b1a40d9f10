package io.orderflow.runner;

import io.orderflow.kafka.KafkaSettings;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/** The flow-runner's settings, under {@code orderflow.*} (see {@code flow-runner.yaml}). */
@ConfigurationProperties("orderflow")
public record RunnerProperties(@DefaultValue KafkaSettings kafka, @DefaultValue("./data") String dataDir,
                               @DefaultValue("1440") long timeScale, Streams streams, Runner runner) {

    /**
     * Kafka Streams application id, state directory, and commit interval: how often a transaction is committed,
     * which bounds how long its output waits before read_committed readers see it.
     */
    public record Streams(@DefaultValue("orderflow-flow-runner") String applicationId, String stateDir,
                          @DefaultValue("20") long commitIntervalMs) {
    }

    /**
     * @param maxSteps     node executions per instance before continuing as a new instance
     * @param stepsPerTask node executions per task before handing the rest on as an Advance task
     * @param seedFlows    publish the built-in flows that the flows topic lacks at start
     * @param nodeBudget   how long one node may execute before it fails ({@link io.orderflow.runner.run.NodeBudget})
     */
    public record Runner(@DefaultValue("10000") long maxSteps, @DefaultValue("50") int stepsPerTask,
                         @DefaultValue("true") boolean seedFlows, @DefaultValue("5s") Duration nodeBudget) {
    }
}
