package io.orderflow.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.LogAndContinueExceptionHandler;
import org.apache.kafka.streams.errors.LogAndFailProcessingExceptionHandler;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka Streams setup the order-processor and the flow-runner share: their configuration, their error policy
 * and their lifecycle.
 *
 * <p>The error policy, the same in both: a record that cannot be read (bytes that do not parse) is logged and skipped.
 * A record that can be read but not processed is each processor's to handle: it tries again a bounded number of times
 * and then sets the one order aside as an incident, commits the record, and moves on (Zeebe's banned instances), so
 * no record reaches Kafka Streams' processing handler in normal operation. One that does anyway (a bug in that very
 * handling) fails the record, which aborts the exactly-once transaction with everything the record had done, and the
 * stream thread is replaced.
 */
public final class StreamsApp {

    private static final Logger log = LoggerFactory.getLogger(StreamsApp.class);
    /**
     * A read_committed fetch can wait out fetch.max.wait.ms (500 ms by default) for records that are already
     * committed; each hop of an order pays it, so keep it short.
     */
    public static final int FETCH_MAX_WAIT_MS = 50;
    /** The services' producers compress their batches with this ({@code compression.type}). */
    public static final String COMPRESSION = "lz4";

    private StreamsApp() {
    }

    /** The configuration both apps start from; each adds its own (the processor its {@code application.server}). */
    public static Properties properties(String applicationId, KafkaSettings kafka, String stateDir,
                                        long commitIntervalMs) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.putAll(clusterProperties(kafka));
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        props.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, BoundedRocksDb.class);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, commitIntervalMs);
        // Transactional state stores: a task's writes stay in a buffer until its Kafka transaction commits, so what a
        // store holds on disk is always committed. Without them, exactly-once wipes every store a process held when it
        // died and restores it from its changelog, so a restart after a crash took time in proportion to the orders
        // kept: with 100,000 orders kept, 13.8 to 112.3 s to ready (median 36.1 s), against 14.3 to 26.1 s (median
        // 17.8 s) with them (docs/operations.md, crash rounds). Interactive queries read uncommitted writes (the
        // default), as a store without a buffer would: an order's view is there as soon as its command is decided.
        props.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
        // changelog segments the log cleaner can compact, so a restore reads about one record per key (Changelogs)
        props.putAll(Changelogs.streamsProperties());
        // The stream thread commits only between polls, and a poll with nothing to fetch blocks for poll.ms (100 ms by
        // default): what a task wrote after the last commit stays invisible to read_committed readers until then. The
        // gateway's callers wait for those replies before they send more, so under a steady load each round of
        // commands would wait out that poll (POST p50 109 to 114 ms at 128 in flight against 38 ms with poll.ms at the
        // commit interval, measured 2026-11-25; docs/performance.md). Polling no longer than the commit interval lets a
        // commit fall due on time.
        props.put(StreamsConfig.POLL_MS_CONFIG, commitIntervalMs);
        props.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, LogAndContinueExceptionHandler.class);
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, LogAndFailProcessingExceptionHandler.class);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), FETCH_MAX_WAIT_MS);
        // Every record is JSON, and most of an order's records (its state on the changelog, its reports and tasks)
        // repeat field names and ids; LZ4 batches take a fraction of the broker's disk and network for little CPU.
        props.put(StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG), COMPRESSION);
        // for the consumers, producers and admin client alike (see SocketBuffers)
        props.putAll(SocketBuffers.client());
        // Back within seconds after a crash: a restarted instance rejoins under its stable id and takes its tasks back
        // without waiting out the dead member's session; when it stays away, another instance takes over from its
        // standby copies after the session timeout instead of restoring every store from the changelog.
        props.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, kafka.standbyReplicas());
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), kafka.instanceId(stateDir));
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG),
                (int) kafka.sessionTimeout().toMillis());
        return props;
    }

    /**
     * The cluster and how to reach it, for the app and its internal clients ({@link KafkaSettings#clientProperties()}),
     * and the replication of its internal topics (changelogs, repartition topics) as of every topic the services
     * create: {@code TOPIC_REPLICATION} and {@code TOPIC_MIN_ISR}.
     */
    static Map<String, Object> clusterProperties(KafkaSettings kafka) {
        Map<String, Object> props = kafka.clientProperties();
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, (int) kafka.topicReplication());
        kafka.topicConfig().forEach((name, value) -> props.put(StreamsConfig.topicPrefix(name), value));
        return props;
    }

    /**
     * The admin client's settings among an app's {@code properties} (the cluster and how to reach it), under {@code
     * clientId}, a request bounded by {@code timeout} and a call by twice that: for the admin work done beside the app.
     */
    static Map<String, Object> adminConfig(Map<?, ?> properties, String clientId, Duration timeout) {
        Set<String> known = AdminClientConfig.configNames();
        Map<String, Object> admin = new HashMap<>();
        properties.forEach((name, value) -> {
            if (known.contains(String.valueOf(name))) {
                admin.put(String.valueOf(name), value);
            }
        });
        admin.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
        admin.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis() * 2);
        admin.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        return admin;
    }

    /**
     * Settles what the app's previous run left in the cluster ({@link PreviousRun}), then creates and starts the app; a
     * stream thread that dies of an exception is logged and replaced. Its start is
     * watched ({@link StreamsProgress}, kept in the answer): the restore's progress is logged every 10 s
     * under {@code service}'s name, and tasks that have not started for 30 s are logged at WARN with what they wait
     * for.
     *
     * @param service the service's name ({@code order-processor}, {@code flow-runner}), first word of those lines
     */
    public static StartedStreams start(String service, Topology topology, Properties properties) {
        Changelogs.align(properties);
        PreviousRun.settle(service, properties);
        KafkaStreams streams = new KafkaStreams(topology, properties);
        streams.setUncaughtExceptionHandler(e -> {
            log.error("{} stream thread failed; replacing it", service, e);
            return StreamThreadExceptionResponse.REPLACE_THREAD;
        });
        StreamsProgress progress = new StreamsProgress(service, properties, System::currentTimeMillis);
        progress.watch(streams);
        streams.start();
        return new StartedStreams(streams, progress);
    }
}
