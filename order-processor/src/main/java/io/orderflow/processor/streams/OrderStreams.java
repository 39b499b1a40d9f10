package io.orderflow.processor.streams;

import io.orderflow.kafka.StartedStreams;
import io.orderflow.kafka.StreamsApp;
import io.orderflow.processor.ProcessorProperties;
import io.orderflow.processor.order.OrderApplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
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
    private final Clock clock;
    private final LiveOrders live;
    private volatile StartedStreams streams;
    private volatile HostInfo self;

    public OrderStreams(ProcessorProperties settings) {
        this(settings, OrderApplier::applyAll, Clock.systemUTC());
    }

    /**
     * @param applier applies the agent's facts: {@link OrderApplier#applyAll}, or a bean that observes it
     * @param clock   the time the agent decides by: real time, or the service clock under clock control
     */
    @Autowired
    public OrderStreams(ProcessorProperties settings, ObjectProvider<OrderAgent.Applier> applier, Clock clock) {
        this(settings, applier.getIfAvailable(() -> OrderApplier::applyAll), clock);
    }

    private OrderStreams(ProcessorProperties settings, OrderAgent.Applier applier, Clock clock) {
        this.settings = settings;
        this.applier = applier;
        this.clock = clock;
        this.live = new LiveOrders(settings.streams().liveOrdersPerPartition());
    }

    @Override
    public synchronized void onApplicationEvent(WebServerInitializedEvent event) {
        if (event.getApplicationContext().getServerNamespace() != null || streams != null) {
            return;
        }
        self = new HostInfo(advertisedHost(), event.getWebServer().getPort());
        streams = StreamsApp.start("order-processor", OrderTopology.build(settings.agentSettings(), clock,
                OrderTopology.SWEEP_BUDGET, applier, live), properties(self));
        log.info("Order processor streams started, serving queries as {}:{}", self.host(), self.port());
    }

    /** The running streams client, or empty before the web server started or after close. */
    public Optional<KafkaStreams> streams() {
        return started().map(StartedStreams::streams);
    }

    /** The running app with the watch on its start, or empty before the web server started or after close. */
    public Optional<StartedStreams> started() {
        return Optional.ofNullable(streams);
    }

    /** The orders this instance's active tasks wrote last, readable without the stores' locks. */
    public LiveOrders live() {
        return live;
    }

    /** How long ended orders are kept before they are archived ({@code ORDER_RETENTION}). */
    public Duration orderRetention() {
        return settings.agentSettings().orderRetention();
    }

    /** This instance's {@code application.server}. */
    public HostInfo self() {
        return self;
    }

    static final int FETCH_MAX_WAIT_MS = StreamsApp.FETCH_MAX_WAIT_MS;

    Properties properties(HostInfo host) {
        ProcessorProperties.Streams config = settings.streams();
        Properties props = StreamsApp.properties(config.applicationId(), settings.kafka(), stateDir(),
                config.commitIntervalMs());
        props.put(StreamsConfig.APPLICATION_SERVER_CONFIG, host.host() + ":" + host.port());
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
            streams.close(Duration.ofSeconds(30));
            streams = null;
        }
    }
}
