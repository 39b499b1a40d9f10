package io.orderflow.gateway.limits;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.gateway.api.ApiError;
import io.orderflow.gateway.api.ApiException;
import io.orderflow.gateway.commands.CommandBus;
import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.observability.ConsumerLag;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Admission of new orders: once the work waiting for the order-processor or the flow-runner passes a bound, a start is
 * refused with 503 and {@code Retry-After} instead of queued without end, so the orders already accepted keep their
 * latency (Zeebe's flow control is the model). The waiting work is the consumer lag of the two Kafka Streams groups:
 * the records of their input topics ({@code order-commands}, {@code run-reports}, {@code node-tasks}) past the
 * offsets they committed, read every {@link #EVERY} by one admin client. A group that has committed nothing yet (a
 * first start) counts as no backlog. Beside it, and known at once, the commands this instance has sent and not yet
 * had a reply for ({@link CommandBus#awaitingReplies}): past {@code OVERLOAD_AWAITING} of them a start is refused too,
 * so a flood is stopped before the backlog can be read (a cold start, or lag that the next read has not seen yet).
 * Decisions, events and cancels are never refused: they finish orders already in.
 */
@Component
public class Admission implements InitializingBean, DisposableBean {

    /** How often the backlog is read. */
    static final Duration EVERY = Duration.ofMillis(500);
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final long MAX_RETRY_AFTER_SECONDS = 10;
    private static final Logger log = LoggerFactory.getLogger(Admission.class);

    /**
     * @param maxBacklog {@code OVERLOAD_BACKLOG}: the records waiting for one of the groups past which new orders are
     *                   refused (default 20,000: about three seconds of work at this machine's rate, some six input
     *                   records an order); 0 turns admission control off
     * @param groups     the consumer groups whose backlog counts: the processor's and the runner's application ids
     * @param maxAwaiting {@code OVERLOAD_AWAITING}: the commands this instance may have sent without a reply yet
     *                   before new orders are refused (default 1,000: four times the benchmark's 256 in flight, whose
     *                   replies come within a second); 0 turns this bound off
     */
    @ConfigurationProperties("orderflow.admission")
    public record Settings(@DefaultValue("20000") long maxBacklog,
                           @DefaultValue({"orderflow-order-processor", "orderflow-flow-runner"}) List<String> groups,
                           @DefaultValue("1000") int maxAwaiting) {
    }

    private final KafkaSettings kafka;
    private final Settings settings;
    private final CommandBus commands;
    private final Counter refused;
    private volatile long backlog;
    private Admin admin;
    private ScheduledExecutorService reader;

    public Admission(KafkaSettings kafka, Settings settings, CommandBus commands, MeterRegistry registry) {
        this.kafka = kafka;
        this.settings = settings;
        this.commands = commands;
        this.refused = Counter.builder("orderflow.gateway.starts.refused")
                .description("Order starts refused: the services' backlog passed OVERLOAD_BACKLOG, or the instance "
                        + "had OVERLOAD_AWAITING commands without a reply")
                .register(registry);
        Gauge.builder("orderflow.gateway.backlog", this, Admission::backlog)
                .description("Records waiting for the order-processor or the flow-runner, the larger of the two")
                .register(registry);
    }

    @Override
    public synchronized void afterPropertiesSet() {
        if (settings.maxBacklog() <= 0) {
            return;
        }
        Map<String, Object> config = kafka.clientProperties();
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, "admission");
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
        admin = Admin.create(config);
        reader = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "admission");
            thread.setDaemon(true);
            return thread;
        });
        reader.scheduleWithFixedDelay(this::read, 0, EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The records waiting for the busier of the groups, as last read. */
    public long backlog() {
        return backlog;
    }

    /**
     * Completes when a new order may start; otherwise fails with 503 and a {@code Retry-After}: 1 s past the commands
     * awaiting a reply, and past the backlog one second per bound's worth of records, at most
     * {@value #MAX_RETRY_AFTER_SECONDS}.
     */
    public Mono<Void> admit() {
        int awaiting = commands.awaitingReplies();
        if (settings.maxAwaiting() > 0 && awaiting >= settings.maxAwaiting()) {
            return busy(awaiting + " commands wait for the order processor's answer", 1);
        }
        long waiting = backlog;
        long bound = settings.maxBacklog();
        if (bound <= 0 || waiting <= bound) {
            return Mono.empty();
        }
        return busy(waiting + " records wait to be processed", Math.min(MAX_RETRY_AFTER_SECONDS, 1 + waiting / bound));
    }

    /** A refusal: 503, {@code The service is busy: <why>; ...}, and {@code Retry-After} in seconds. */
    private Mono<Void> busy(String why, long retryAfterSeconds) {
        refused.increment();
        return Mono.error(new ApiException(HttpStatus.SERVICE_UNAVAILABLE,
                ApiError.of("The service is busy: " + why + "; retry after the time in Retry-After"),
                Map.of("Retry-After", Long.toString(retryAfterSeconds))));
    }

    private void read() {
        try {
            long busiest = 0;
            for (String group : settings.groups()) {
                busiest = Math.max(busiest, backlogOf(group));
            }
            backlog = busiest;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // keep the last figure: a broker that does not answer stops the starts through their own timeouts
            log.debug("Could not read the services' backlog", e);
        }
    }

    private long backlogOf(String group) throws Exception {
        return ConsumerLag.lagByTopic(admin, group, TIMEOUT).values().stream().mapToLong(Long::longValue).sum();
    }

    @Override
    public synchronized void destroy() {
        if (reader != null) {
            reader.shutdownNow();
        }
        if (admin != null) {
            admin.close(Duration.ofSeconds(1));
        }
    }
}
