package io.orderflow.dispatcher.dispatch;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.orderflow.dispatcher.deliveries.Delivery;
import io.orderflow.dispatcher.deliveries.DeliveryStatus;
import io.orderflow.dispatcher.deliveries.DeliveryStore;
import io.orderflow.dispatcher.subscriptions.Subscription;
import io.orderflow.dispatcher.subscriptions.SubscriptionStore;
import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.TopicReader;
import io.orderflow.kafka.TopicReaderLifecycle;
import io.orderflow.kafka.tracing.TraceHeaders;
import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.topics.Topics;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Lists each delivery {@code pending} from the moment it exists: when its order event is on {@code order-events}.
 * The fan-out writes nothing before a delivery's first attempt has its outcome (a delivery that succeeds at once is
 * one record, {@code delivered}), so the {@code pending} state comes from the event itself: every dispatcher instance
 * reads {@code order-events} (outside any group, as it reads the delivery records) and tells its
 * {@link DeliveryStore} of each delivery the event makes, which the store lists {@code pending}, with no attempt, until
 * the delivery's first record replaces it. No record is written for it, and the instance the gateway asks need not be
 * the one that fans the event out. (The instance that fans it out tells its store itself as it takes the event,
 * before its first request goes out, whichever of the two reads the event first.)
 *
 * <p>Reading starts where the fan-out goes on from (its group's committed offsets): every event before them has its
 * deliveries recorded already. A subscription created after an event was written is not told of it: the fan-out may
 * have passed the event before the subscription existed, and the delivery would be listed {@code pending} for ever.
 */
@Component
public class UntriedDeliveries extends TopicReaderLifecycle<String, String> {

    private static final Logger log = LoggerFactory.getLogger(UntriedDeliveries.class);

    private static final Duration OFFSETS_TIMEOUT = Duration.ofSeconds(30);

    /**
     * Fetches as the fan-out's do, up to 100 ms for 64 KB: every order makes several events, and a fetch per event
     * would cost the broker hundreds of requests a second under load. A delivery is listed at most that much later.
     */
    private static final Map<String, Object> FETCH = Map.of(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 65536,
            ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);

    /** What this reads of an event at once; its data stays in the record's text until the delivery is listed. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Head(String event, String orderId, String step, long occurredAt) {
    }

    private final KafkaSettings kafka;
    private final SubscriptionStore subscriptions;
    private final DeliveryStore deliveries;

    public UntriedDeliveries(KafkaSettings kafka, SubscriptionStore subscriptions, DeliveryStore deliveries) {
        this.kafka = kafka;
        this.subscriptions = subscriptions;
        this.deliveries = deliveries;
    }

    @Override
    protected TopicReader<String, String> newReader() {
        return new TopicReader<>(kafka, Topics.ORDER_EVENTS.name(), new StringDeserializer(), new StringDeserializer(),
                TopicReader.From.END, FETCH, this::read).startingAt(this::fanOutPositions);
    }

    /**
     * The fan-out's committed offsets; a partition without one starts at its beginning, as the fan-out's does
     * ({@code auto.offset.reset=earliest}). When they cannot be read, none: every partition starts at its end, and
     * the deliveries of events written before this start are listed once their first attempt has its outcome.
     */
    private Map<TopicPartition, Long> fanOutPositions(List<TopicPartition> partitions) {
        Map<String, Object> config = kafka.clientProperties();
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, "webhook-untried-deliveries");
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) OFFSETS_TIMEOUT.toMillis());
        try (Admin admin = Admin.create(config)) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(EventFanOut.GROUP)
                    .partitionsToOffsetAndMetadata().get(OFFSETS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            Map<TopicPartition, Long> offsets = new HashMap<>();
            Map<TopicPartition, OffsetSpec> fromBeginning = new HashMap<>();
            for (TopicPartition partition : partitions) {
                OffsetAndMetadata offset = committed.get(partition);
                if (offset != null) {
                    offsets.put(partition, offset.offset());
                } else {
                    fromBeginning.put(partition, OffsetSpec.earliest());
                }
            }
            if (!fromBeginning.isEmpty()) {
                admin.listOffsets(fromBeginning).all().get(OFFSETS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                        .forEach((partition, info) -> offsets.put(partition, info.offset()));
            }
            log.info("Deliveries of {} listed pending from the fan-out's offsets on: {} ({} partitions from their"
                    + " beginning)", Topics.ORDER_EVENTS.name(), new TreeMap<>(offsets.entrySet().stream().collect(
                    Collectors.toMap(e -> e.getKey().partition(), Map.Entry::getValue))), fromBeginning.size());
            return offsets;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Map.of();
        } catch (ExecutionException | TimeoutException | KafkaException e) {
            log.warn("Could not read where the fan-out goes on in {}; deliveries of the events already there are"
                    + " listed once their first attempt has its outcome", Topics.ORDER_EVENTS.name(), e);
            return Map.of();
        }
    }

    private void read(ConsumerRecord<String, String> record) {
        if (record.value() == null) {
            return;
        }
        awaitStores();
        Head head;
        try {
            head = Json.read(record.value(), Head.class);
        } catch (RuntimeException e) {
            return; // not an event: the fan-out logs it
        }
        if (head.event() == null || head.orderId() == null || head.step() == null) {
            return;
        }
        long createdAt = EventFanOut.createdAt(head.occurredAt(), record);
        String traceparent = TraceHeaders.traceparent(record.headers());
        String json = record.value();
        for (Subscription subscription : subscriptions.all()) {
            if (subscription.wants(head.event()) && subscription.createdAt() <= record.timestamp()) {
                String deliveryId = DeliveryIds.of(head.orderId(), head.step(), subscription.id());
                String subscriptionId = subscription.id();
                deliveries.untried(subscriptionId, deliveryId, createdAt, traceparent, () -> {
                    OrderEvent event = Json.read(json, OrderEvent.class);
                    return new Delivery(deliveryId, subscriptionId, event.event(), event.orderId(),
                            DeliveryPayload.of(event, deliveryId), DeliveryStatus.PENDING, 0, null, null, createdAt,
                            null);
                });
            }
        }
    }

    /**
     * Until the stored subscriptions and delivery records are all known here: an event whose deliveries are recorded
     * already must not be listed {@code pending} again.
     */
    private void awaitStores() {
        try {
            subscriptions.loaded().get();
            deliveries.loaded().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while the stores load", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("The stores did not load", e);
        }
    }
}
