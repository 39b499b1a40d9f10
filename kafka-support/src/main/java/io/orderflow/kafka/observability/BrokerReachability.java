package io.orderflow.kafka.observability;

import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.SocketBuffers;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Readiness of the Kafka cluster as this service sees it: UP when a broker answers a describe-cluster request within
 * {@link #TIMEOUT}. A Kafka Streams application stays {@code RUNNING} while its broker is gone, so its state alone
 * does not tell. The check's admin client is made from the service's client properties (security protocol, SASL,
 * TLS), so it is let in wherever the service's other clients are. The answer is kept for {@link #REUSE}, so probes from a load balancer and an operator's health page
 * together send at most one request a second; the admin client is created on the first check.
 */
public final class BrokerReachability implements HealthIndicator, DisposableBean {

    static final Duration TIMEOUT = Duration.ofSeconds(2);
    static final Duration REUSE = Duration.ofSeconds(1);

    /** The client properties every client of the service starts from: the bootstrap servers, security, SASL, TLS. */
    private final Map<String, Object> clientProperties;
    private final String bootstrapServers;
    private final Clock clock;
    private Admin admin;
    private Health last;
    private Instant lastAt = Instant.MIN;

    /** Reaches the cluster as every client of the service does ({@link KafkaSettings#clientProperties()}). */
    public BrokerReachability(KafkaSettings kafka) {
        this(kafka.clientProperties(), Clock.systemUTC());
    }

    /** A plaintext cluster at {@code bootstrapServers} (tests). */
    public BrokerReachability(String bootstrapServers) {
        this(new KafkaSettings(bootstrapServers).clientProperties(), Clock.systemUTC());
    }

    BrokerReachability(Map<String, Object> clientProperties, Clock clock) {
        this.clientProperties = Map.copyOf(clientProperties);
        this.bootstrapServers = String.valueOf(clientProperties.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG));
        this.clock = clock;
    }

    @Override
    public synchronized Health health() {
        Instant now = clock.instant();
        if (last == null || now.isAfter(lastAt.plus(REUSE))) {
            last = check();
            lastAt = clock.instant();
        }
        return last;
    }

    private Health check() {
        try {
            int brokers = admin().describeCluster(new DescribeClusterOptions().timeoutMs((int) TIMEOUT.toMillis()))
                    .nodes().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).size();
            return Health.up().withDetail("brokers", brokers).build();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Health.down().withDetail("error", "interrupted").build();
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            return Health.down().withDetail("bootstrapServers", bootstrapServers)
                    .withDetail("error", cause.getClass().getSimpleName()).build();
        }
    }

    private Admin admin() {
        if (admin == null) {
            Map<String, Object> config = new HashMap<>();
            Set<String> known = AdminClientConfig.configNames();
            clientProperties.forEach((name, value) -> {
                if (known.contains(name)) {
                    config.put(name, value);
                }
            });
            config.putAll(SocketBuffers.client());
            config.put(AdminClientConfig.CLIENT_ID_CONFIG, "readiness-check");
            config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
            config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
            admin = Admin.create(config);
        }
        return admin;
    }

    @Override
    public synchronized void destroy() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(1));
            admin = null;
        }
    }
}
