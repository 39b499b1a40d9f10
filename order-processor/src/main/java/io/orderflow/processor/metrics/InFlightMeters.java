package io.orderflow.processor.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.processor.index.OrderIndexReads;
import io.orderflow.processor.streams.OrderAgent;
import io.orderflow.schemas.model.OrderStatus;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;

/**
 * Orders in flight on this instance by status: meter {@code orderflow.orders.in_flight{status}}, one gauge for each
 * status that is not terminal ({@code queued}, {@code running}, {@code waiting}). The figures are of the
 * order index of this instance's active tasks, so the instances of a deployment add up to the whole (sum by status).
 * The figures are the index's counters per status (no walk of the rows). One read serves every gauge and every
 * scraper for {@link #REUSE}, however often the meters are read, and none while nobody scrapes. While the Streams
 * application is not running (a rebalance, a restore) the last figures stay.
 */
public final class InFlightMeters {

    static final String IN_FLIGHT = "orderflow.orders.in_flight";
    static final Duration REUSE = Duration.ofSeconds(5);

    private final Supplier<Optional<KafkaStreams>> streams;
    private final LongSupplier nanos;
    private final Map<OrderStatus, Long> counts = new EnumMap<>(OrderStatus.class);
    private long countedAt;
    private boolean counted;

    public InFlightMeters(Supplier<Optional<KafkaStreams>> streams, MeterRegistry registry) {
        this(streams, registry, System::nanoTime);
    }

    InFlightMeters(Supplier<Optional<KafkaStreams>> streams, MeterRegistry registry, LongSupplier nanos) {
        this.streams = streams;
        this.nanos = nanos;
        for (OrderStatus status : OrderStatus.values()) {
            if (!status.terminal()) {
                counts.put(status, 0L);
                Gauge.builder(IN_FLIGHT, this, meters -> meters.count(status))
                        .description("Orders not yet at an end status, by status, on this instance")
                        .tag("status", status.wire()).register(registry);
            }
        }
    }

    synchronized long count(OrderStatus status) {
        long now = nanos.getAsLong();
        if (!counted || now - countedAt >= REUSE.toNanos()) {
            recount();
            countedAt = now;
            counted = true;
        }
        return counts.getOrDefault(status, 0L);
    }

    private void recount() {
        KafkaStreams current = streams.get().orElse(null);
        if (current == null || current.state() != KafkaStreams.State.RUNNING) {
            return;
        }
        Map<OrderStatus, Long> fresh = new EnumMap<>(OrderStatus.class);
        counts.keySet().forEach(status -> fresh.put(status, 0L));
        // the counters the order index keeps per status, over this instance's partitions
        try {
            OrderIndexReads.counters(List.of(current.store(StoreQueryParameters.fromNameAndType(
                    OrderAgent.INDEX, QueryableStoreTypes.<String, byte[]>keyValueStore()))), null)
                    .forEach((wire, n) -> {
                        OrderStatus status = OrderStatus.fromWire(wire);
                        if (status != null) {
                            fresh.computeIfPresent(status, (s, sum) -> sum + n);
                        }
                    });
        } catch (InvalidStateStoreException e) {
            return; // a rebalance began: keep the last figures
        }
        counts.putAll(fresh);
    }
}
