package io.orderflow.kafka.observability;

import io.orderflow.kafka.StartedStreams;
import io.orderflow.kafka.StreamsProgress;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Readiness of a service's Kafka Streams application: UP only while it is {@code RUNNING}. While it rebalances or
 * restores its stores ({@code REBALANCING}: a stream thread is {@code RUNNING} only once every task it was assigned has
 * restored), before it started ({@code CREATED}), and once it failed or closed, no order of its partitions moves, so
 * the service is not ready. While stores restore, the details give {@code restoredRecords} and {@code totalRecords}
 * ({@link StreamsProgress}). The state is read on each check (a field read); the
 * application's own state listener stays free for its owner.
 */
public final class StreamsReadiness implements HealthIndicator {

    private final Supplier<StartedStreams> streams;

    /** {@code streams} answers the application, or {@code null} before it was created and after it was closed. */
    public StreamsReadiness(Supplier<StartedStreams> streams) {
        this.streams = streams;
    }

    @Override
    public Health health() {
        StartedStreams current = streams.get();
        if (current == null) {
            return Health.down().withDetail("state", "NOT_STARTED").build();
        }
        KafkaStreams.State state = current.streams().state();
        Health.Builder health = (state == KafkaStreams.State.RUNNING ? Health.up() : Health.down())
                .withDetail("state", state.name());
        StreamsProgress progress = current.progress();
        if (progress.restoring()) {
            health.withDetail("restoredRecords", progress.restoredRecords())
                    .withDetail("totalRecords", progress.totalRecords());
        }
        return health.build();
    }
}
