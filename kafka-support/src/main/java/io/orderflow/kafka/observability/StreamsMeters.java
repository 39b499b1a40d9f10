package io.orderflow.kafka.observability;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.orderflow.kafka.StartedStreams;
import io.orderflow.kafka.StreamsProgress;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.context.event.ApplicationStartedEvent;
import org.springframework.context.ApplicationListener;

/**
 * Binds Micrometer's {@link KafkaStreamsMetrics} to a service's Kafka Streams application once the application context
 * has started (the application is created while the context starts: when the web server has its port, or as a
 * lifecycle bean). Kafka's own metrics become meters named {@code kafka.stream.*}, {@code kafka.consumer.*} (with the
 * consumer lag {@code kafka.consumer.fetch.manager.records.lag.max} per topic and partition), {@code kafka.producer.*}
 * and {@code kafka.admin.*}; the meters read Kafka's values at scrape time, so the stream threads do no extra work.
 * Metrics Kafka adds later (a partition's lag once it is assigned) are picked up every {@link #REFRESH}. Besides
 * them, {@value #RESTORE_METER} gives the stores' restore progress ({@link StreamsProgress}).
 */
public final class StreamsMeters implements ApplicationListener<ApplicationStartedEvent>, DisposableBean {

    static final Duration REFRESH = Duration.ofSeconds(15);
    /** The restore's progress ({@link StreamsProgress}), tagged {@code records=restored} and {@code records=total}. */
    public static final String RESTORE_METER = "orderflow.streams.restore";

    private final Supplier<StartedStreams> streams;
    private final MeterRegistry registry;
    private final String application;
    private KafkaStreamsMetrics bound;
    private ScheduledExecutorService refresher;

    /**
     * @param streams     the application once created, else {@code null}
     * @param application the application's name, the {@code application} tag of its meters
     */
    public StreamsMeters(Supplier<StartedStreams> streams, MeterRegistry registry, String application) {
        this.streams = streams;
        this.registry = registry;
        this.application = application;
    }

    @Override
    public synchronized void onApplicationEvent(ApplicationStartedEvent event) {
        StartedStreams current = streams.get();
        if (bound != null || current == null) {
            return;
        }
        refresher = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, application + "-meters");
            thread.setDaemon(true);
            return thread;
        });
        bound = new KafkaStreamsMetrics(current.streams(), Tags.of("application", application), refresher, REFRESH);
        bound.bindTo(registry);
        StreamsProgress progress = current.progress();
        Gauge.builder(RESTORE_METER, progress, StreamsProgress::restoredRecords).tag("application", application)
                .tag("records", "restored").baseUnit("records")
                .description("Changelog records restored since the application last ran (0 while it runs)")
                .register(registry);
        Gauge.builder(RESTORE_METER, progress, StreamsProgress::totalRecords).tag("application", application)
                .tag("records", "total").baseUnit("records")
                .description("Changelog records to restore since the application last ran (0 while it runs)")
                .register(registry);
    }

    @Override
    public synchronized void destroy() {
        if (bound != null) {
            bound.close();
            bound = null;
        }
        if (refresher != null) {
            refresher.shutdownNow();
        }
    }
}
