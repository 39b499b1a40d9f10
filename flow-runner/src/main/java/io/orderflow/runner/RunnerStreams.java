package io.orderflow.runner;

import io.orderflow.kafka.BoundedRocksDb;
import io.orderflow.kafka.SocketBuffers;
import io.orderflow.runner.flows.FlowFiles;
import io.orderflow.runner.flows.FlowPublisher;
import io.orderflow.runner.run.RunEngine;
import io.orderflow.runner.run.RunTopology;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.LogAndContinueExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/** Seeds the built-in flows, then runs the runner's Kafka Streams application; closes it leaving the group. */
@Component
public class RunnerStreams implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(RunnerStreams.class);

    private final RunnerProperties properties;
    private final RunEngine engine;
    private final FlowPublisher publisher;
    private volatile KafkaStreams streams;

    public RunnerStreams(RunnerProperties properties, RunEngine engine, FlowPublisher publisher) {
        this.properties = properties;
        this.engine = engine;
        this.publisher = publisher;
    }

    @Override
    public void start() {
        if (properties.runner().seedFlows()) {
            publisher.seed(FlowFiles.seeded());
        }
        streams = new KafkaStreams(RunTopology.build(engine), streamsConfig());
        streams.setUncaughtExceptionHandler(e -> {
            log.error("Flow-runner stream thread failed; replacing it", e);
            return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse
                    .REPLACE_THREAD;
        });
        streams.start();
    }

    Properties streamsConfig() {
        Properties props = new Properties();
        RunnerProperties.Streams s = properties.streams();
        String applicationId = s == null || s.applicationId() == null ? "orderflow-flow-runner" : s.applicationId();
        String stateDir = s == null || s.stateDir() == null
                ? Path.of(properties.dataDir(), "flow-runner", "streams").toString() : s.stateDir();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, properties.kafka().bootstrapServers());
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        props.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, BoundedRocksDb.class);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        long commitIntervalMs = s == null ? 20 : s.commitIntervalMs();
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, commitIntervalMs);
        // a poll with nothing to fetch blocks for poll.ms (100 ms by default) before the thread can commit what it
        // wrote: no longer than the commit interval (see OrderStreams)
        props.put(StreamsConfig.POLL_MS_CONFIG, commitIntervalMs);
        props.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
                LogAndContinueExceptionHandler.class);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        // A read_committed fetch can wait out fetch.max.wait.ms (500 ms by default) for records that are already
        // committed; each hop of an order pays it, so keep it short.
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), 50);
        // for the consumers, producers and admin client alike (see SocketBuffers)
        props.putAll(SocketBuffers.client());
        return props;
    }

    @Override
    public void stop() {
        KafkaStreams running = streams;
        if (running != null) {
            running.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                    .withTimeout(Duration.ofSeconds(10)));
            streams = null;
        }
    }

    @Override
    public boolean isRunning() {
        return streams != null;
    }

    /** The running Streams instance (for health checks and tests), or {@code null}. */
    public KafkaStreams streams() {
        return streams;
    }
}
