package io.orderflow.kafka.clock;

import io.orderflow.kafka.CompactedTopicView;
import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.SocketBuffers;
import io.orderflow.kafka.TopicProvisioner;
import io.orderflow.schemas.clock.ClockSetting;
import io.orderflow.schemas.topics.Topic;
import io.orderflow.schemas.topics.Topics;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a {@link ServiceClock} at the offset the compacted {@code clock} topic holds, for a service started with
 * {@code CLOCK_CONTROL=true}. Every instance of every such service reads the whole topic outside any consumer group, so
 * they all tell the same time, in one JVM or many. Its start creates the topic when it is missing and returns once
 * the clock holds what the topic held, so nothing the service decides at start uses real time by mistake. The gateway
 * writes the topic through {@link #publish}.
 */
public final class ClockFollower extends CompactedTopicView<String, ClockSetting> {

    private static final Logger log = LoggerFactory.getLogger(ClockFollower.class);
    /** How long a start waits to have read the topic before it fails. */
    private static final Duration CATCH_UP = Duration.ofSeconds(60);

    private final KafkaSettings kafka;
    private final ServiceClock clock;
    private final String service;
    private final Object writing = new Object();
    private volatile ClockSetting latest;
    private KafkaProducer<String, ClockSetting> producer;

    /** @param service the service's name, for its log lines */
    public ClockFollower(KafkaSettings kafka, String service) {
        this(kafka, service, Clock.systemUTC());
    }

    /** @param real the real time the service clock adds its offset to */
    public ClockFollower(KafkaSettings kafka, String service, Clock real) {
        super(kafka, Topics.CLOCK);
        this.kafka = kafka;
        this.service = service;
        this.clock = new ServiceClock(real);
    }

    /** The service clock this follower keeps. */
    public ServiceClock clock() {
        return clock;
    }

    /** The setting the clock follows; empty at real time before anyone changed it. */
    public Optional<ClockSetting> setting() {
        return Optional.ofNullable(latest);
    }

    @Override
    protected void apply(String key, ClockSetting value) {
        if (!ClockSetting.KEY.equals(key)) {
            return;
        }
        long offset = value == null ? 0 : value.offsetMillis();
        long before = clock.offsetMillis();
        clock.follow(offset);
        latest = value;
        if (offset != before) {
            log.info("Clock control: {} now tells the time as {} ({} from real time{})", service, clock.instant(),
                    Duration.ofMillis(offset), value == null ? "" : ", set by " + value.changedBy());
        }
    }

    @Override
    public void start() {
        List<Topic<?, ?>> clockTopic = List.of(Topics.CLOCK);
        TopicProvisioner.createMissing(kafka, clockTopic, 1);
        super.start();
        try {
            caughtUp().get(CATCH_UP.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while reading the clock topic", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("CLOCK_CONTROL is on, but the clock topic could not be read within "
                    + CATCH_UP.toSeconds() + " s", e);
        }
        log.warn("Clock control is on: {} tells the time by the clock topic, now {} ({} from real time)", service,
                clock.instant(), clock.offset());
    }

    /**
     * Writes the clock's new setting; completes once this follower has read it back, so the caller's next reading of
     * {@link #clock()} tells the new time. Other followers read it within the topic's latency.
     */
    public CompletableFuture<Void> publish(ClockSetting setting) {
        CompletableFuture<RecordMetadata> sent = new CompletableFuture<>();
        writer().send(new ProducerRecord<>(Topics.CLOCK.name(), ClockSetting.KEY, setting), (metadata, error) -> {
            if (error != null) {
                sent.completeExceptionally(error);
            } else {
                sent.complete(metadata);
            }
        });
        return sent.thenCompose(this::applied);
    }

    /** The producer, made on the first write: only the gateway writes the clock. */
    private KafkaProducer<String, ClockSetting> writer() {
        synchronized (writing) {
            if (producer == null) {
                Properties props = new Properties();
                props.putAll(kafka.clientProperties());
                props.put(ProducerConfig.ACKS_CONFIG, "all");
                props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
                props.putAll(SocketBuffers.client());
                producer = new KafkaProducer<>(props, Topics.CLOCK.keySerde().serializer(),
                        Topics.CLOCK.valueSerde().serializer());
            }
            return producer;
        }
    }

    @Override
    protected void stopping() {
        synchronized (writing) {
            if (producer != null) {
                producer.close(Duration.ofSeconds(5));
                producer = null;
            }
        }
    }
}
