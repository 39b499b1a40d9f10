package io.orderflow.kafka.observability;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.orderflow.kafka.KafkaSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;

/**
 * Consumer lag per consumer group and topic, as the broker sees it: meter {@code orderflow.consumer.lag{group,topic}},
 * the records of the topic's partitions past the group's committed offsets (the end offsets a
 * {@code read_committed} consumer can reach, so open transactions do not count), summed over the partitions. It is
 * computed from the cluster's committed offsets every {@link #EVERY} (or the interval given) by one admin client,
 * for every consumer group of the cluster that has committed offsets; unlike a consumer's own
 * {@code records-lag-max} it is there while the consumer is stopped, which is when a lag grows. A failed computation
 * keeps the last figures (logged at debug).
 */
public final class ConsumerLag implements InitializingBean, DisposableBean {

    public static final String LAG = "orderflow.consumer.lag";
    static final Duration EVERY = Duration.ofSeconds(5);
    private static final Duration TIMEOUT = Duration.ofSeconds(4);
    private static final Logger log = LoggerFactory.getLogger(ConsumerLag.class);

    private final KafkaSettings kafka;
    private final Duration every;
    private final MultiGauge gauge;
    private volatile Map<String, Map<String, Long>> last = Map.of();
    private Admin admin;
    private ScheduledExecutorService refresher;

    public ConsumerLag(KafkaSettings kafka, MeterRegistry registry) {
        this(kafka, registry, EVERY);
    }

    /** Computed every {@code every} instead of {@link #EVERY}, the first time at once. */
    public ConsumerLag(KafkaSettings kafka, MeterRegistry registry, Duration every) {
        this.kafka = kafka;
        this.every = every;
        this.gauge = MultiGauge.builder(LAG).description("Records past the group's committed offsets, by topic")
                .register(registry);
    }

    @Override
    public synchronized void afterPropertiesSet() {
        Map<String, Object> config = kafka.clientProperties();
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, "consumer-lag");
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
        admin = Admin.create(config);
        refresher = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "consumer-lag");
            thread.setDaemon(true);
            return thread;
        });
        refresher.scheduleWithFixedDelay(this::refresh, 0, every.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The last figures: group, then topic, then records behind; empty before the first computation. */
    public Map<String, Map<String, Long>> lags() {
        return last;
    }

    private void refresh() {
        try {
            Map<String, Map<String, Long>> lags = compute();
            List<MultiGauge.Row<?>> rows = new ArrayList<>();
            lags.forEach((group, topics) -> topics.forEach((topic, records) ->
                    rows.add(MultiGauge.Row.of(Tags.of("group", group, "topic", topic), records))));
            gauge.register(rows, true);
            last = lags;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.debug("Could not compute the consumer lag", e);
        }
    }

    private Map<String, Map<String, Long>> compute() throws Exception {
        Map<String, Map<String, Long>> lags = new TreeMap<>();
        for (GroupListing group : admin.listGroups().all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            Map<String, Long> byTopic = lagByTopic(admin, group.groupId(), TIMEOUT);
            if (!byTopic.isEmpty()) {
                lags.put(group.groupId(), byTopic);
            }
        }
        return lags;
    }

    /**
     * One group's lag by topic: the records of each partition it committed an offset for, past that offset, up to the
     * end a {@code read_committed} consumer can reach, summed by topic; empty for a group that committed nothing.
     */
    public static Map<String, Long> lagByTopic(Admin admin, String group, Duration timeout) throws Exception {
        long millis = timeout.toMillis();
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get(millis, TimeUnit.MILLISECONDS);
        committed.values().removeIf(Objects::isNull);
        if (committed.isEmpty()) {
            return Map.of();
        }
        Map<TopicPartition, OffsetSpec> partitions = new HashMap<>();
        committed.keySet().forEach(tp -> partitions.put(tp, OffsetSpec.latest()));
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(partitions,
                new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(millis, TimeUnit.MILLISECONDS);
        Map<String, Long> byTopic = new TreeMap<>();
        committed.forEach((tp, offset) -> {
            ListOffsetsResult.ListOffsetsResultInfo end = ends.get(tp);
            if (end != null) {
                byTopic.merge(tp.topic(), Math.max(0, end.offset() - offset.offset()), Long::sum);
            }
        });
        return byTopic;
    }

    @Override
    public synchronized void destroy() {
        if (refresher != null) {
            refresher.shutdownNow();
        }
        if (admin != null) {
            admin.close(Duration.ofSeconds(1));
        }
    }
}
