package io.orderflow.runner;

import io.orderflow.kafka.StartedStreams;
import io.orderflow.kafka.StreamsApp;
import io.orderflow.runner.flows.FlowFiles;
import io.orderflow.runner.flows.FlowPublisher;
import io.orderflow.runner.run.NodeBudget;
import io.orderflow.runner.run.RunDecider;
import io.orderflow.runner.run.RunTopology;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.streams.KafkaStreams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/** Seeds the built-in flows, then runs the runner's Kafka Streams application; closes it leaving the group. */
@Component
public class RunnerStreams implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(RunnerStreams.class);

    private final RunnerProperties properties;
    private final RunDecider decider;
    private final FlowPublisher publisher;
    /** Worker threads that run nodes (see NodeBudget): the stream threads' own, plus room for abandoned ones. */
    private static final int NODE_WORKERS = 16;

    private volatile StartedStreams streams;
    private volatile NodeBudget budget;

    public RunnerStreams(RunnerProperties properties, RunDecider decider, FlowPublisher publisher) {
        this.properties = properties;
        this.decider = decider;
        this.publisher = publisher;
    }

    @Override
    public void start() {
        if (properties.runner().seedFlows()) {
            publisher.seed(FlowFiles.seeded());
        }
        budget = new NodeBudget(properties.runner().nodeBudget(), NODE_WORKERS);
        streams = StreamsApp.start("flow-runner", RunTopology.build(decider, budget), streamsConfig());
    }

    Properties streamsConfig() {
        RunnerProperties.Streams s = properties.streams();
        String applicationId = s == null || s.applicationId() == null ? "orderflow-flow-runner" : s.applicationId();
        String stateDir = s == null || s.stateDir() == null
                ? Path.of(properties.dataDir(), "flow-runner", "streams").toString() : s.stateDir();
        long commitIntervalMs = s == null ? 20 : s.commitIntervalMs();
        return StreamsApp.properties(applicationId, properties.kafka(), stateDir, commitIntervalMs);
    }

    @Override
    public void stop() {
        StartedStreams running = streams;
        if (running != null) {
            running.close(Duration.ofSeconds(10));
            streams = null;
        }
        if (budget != null) {
            budget.close();
            budget = null;
        }
    }

    @Override
    public boolean isRunning() {
        return streams != null;
    }

    /** The running Streams instance (for health checks and tests), or {@code null}. */
    public KafkaStreams streams() {
        StartedStreams running = streams;
        return running == null ? null : running.streams();
    }

    /** The running app with the watch on its start, or {@code null}. */
    public StartedStreams started() {
        return streams;
    }
}
