package io.orderflow.processor.streams;

import io.orderflow.kafka.BoundedRocksDb;
import io.orderflow.kafka.SocketBuffers;
import io.orderflow.processor.ProcessorProperties;
import io.orderflow.processor.order.OrderApplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.LogAndContinueExceptionHandler;
import org.apache.kafka.streams.errors.LogAndFailProcessingExceptionHandler;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.stereotype.Component;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;

/**
 * Runs the Kafka Streams application. It starts once the web server has its port, because
 * {@code application.server} must name the port other instances forward queries to (so {@code server.port=0}
 * works). Closing leaves the group, so the next start does not stall waiting for the session to time out.
 */
@Component
public class OrderStreams implements ApplicationListener<WebServerInitializedEvent>, DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(OrderStreams.class);

    private final ProcessorProperties settings;
    private final OrderAgent.Applier applier;
    private final LiveOrders live;
    private volatile KafkaStreams streams;
    private volatile HostInfo self;

    public OrderStreams(ProcessorProperties settings) {
        this(settings, OrderApplier::applyAll);
    }

    /** @param applier applies the agent's facts: {@link OrderApplier#applyAll}, or a bean that observes it */
    @Autowired
    public OrderStreams(ProcessorProperties settings, ObjectProvider<OrderAgent.Applier> applier) {
        this(settings, applier.getIfAvailable(() -> OrderApplier::applyAll));
    }

    private OrderStreams(ProcessorProperties settings, OrderAgent.Applier applier) {
        this.settings = settings;
        this.applier = applier;
        this.live = new LiveOrders(settings.streams().liveOrdersPerPartition());
    }

    @Override
    public synchronized void onApplicationEvent(WebServerInitializedEvent event) {
        if (event.getApplicationContext().getServerNamespace() != null || streams != null) {
            return;
        }
        self = new HostInfo(advertisedHost(), event.getWebServer().getPort());
        streams = new KafkaStreams(OrderTopology.build(settings.agentSettings(), Clock.systemUTC(),
                OrderTopology.SWEEP_BUDGET, applier, live), properties(self));
        streams.setUncaughtExceptionHandler(e -> {
            log.error("Order processor stream thread failed; replacing it", e);
            return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse
                    .REPLACE_THREAD;
        });
        streams.start();
        log.info("Order processor streams started, serving queries as {}:{}", self.host(), self.port());
    }

    /** The running streams client, or empty before the web server started or after close. */
    public Optional<KafkaStreams> streams() {
        return Optional.ofNullable(streams);
    }

    /** The orders this instance's active tasks wrote last, readable without the stores' locks. */
    public LiveOrders live() {
        return live;
    }

    /** This instance's {@code application.server}. */
    public HostInfo self() {
        return self;
    }

    static final int FETCH_MAX_WAIT_MS = 50;

    Properties properties(HostInfo host) {
        ProcessorProperties.Streams config = settings.streams();
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, config.applicationId());
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, settings.kafka().bootstrapServers());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, config.commitIntervalMs());
        // The stream thread commits only between polls, and a poll with nothing to fetch blocks for poll.ms (100 ms by
        // default): what a task wrote after the last commit stayed invisible to read_committed readers until then. The
        // gateway's callers wait for those replies before they send more, so under a steady load each round of
        // commands waited out that poll (POST p50 112 ms at 128 in flight). Polling no longer than the commit interval
        // lets a commit fall due on time.
        props.put(StreamsConfig.POLL_MS_CONFIG, config.commitIntervalMs());
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir());
        props.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, BoundedRocksDb.class);
        props.put(StreamsConfig.APPLICATION_SERVER_CONFIG, host.host() + ":" + host.port());
        props.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, LogAndContinueExceptionHandler.class);
        // A record the agent cannot process fails (Kafka Streams' default, LogAndFail): skipping it would commit the
        // transaction, and with it whatever the record had already done. Failing aborts the transaction; the
        // uncaught-exception handler above decides what the thread does next.
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, LogAndFailProcessingExceptionHandler.class);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // A read_committed fetch can wait out fetch.max.wait.ms (500 ms by default) for records that are already
        // committed; each hop of an order pays it, so keep it short.
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), FETCH_MAX_WAIT_MS);
        // for the consumers, producers and admin client alike (see SocketBuffers)
        props.putAll(SocketBuffers.client());
        return props;
    }

    private String stateDir() {
        String configured = settings.streams().stateDir();
        return configured != null && !configured.isBlank() ? configured
                : Path.of(settings.dataDir(), "order-processor", "streams").toString();
    }

    private String advertisedHost() {
        String configured = settings.streams().advertisedHost();
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    @Override
    public synchronized void destroy() {
        if (streams != null) {
            streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                    .withTimeout(Duration.ofSeconds(30)));
            streams = null;
        }
    }
}
