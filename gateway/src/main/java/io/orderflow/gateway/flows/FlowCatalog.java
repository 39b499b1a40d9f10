package io.orderflow.gateway.flows;

import io.orderflow.gateway.api.ApiException;
import io.orderflow.kafka.FlowsView;
import io.orderflow.kafka.KafkaSettings;
import io.orderflow.schemas.flows.FlowRecord;
import io.orderflow.schemas.flows.FlowVersion;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * The gateway's view of the compacted {@code flows} topic: read from the beginning at start, then kept up to date.
 * Answers only once the view has caught up with what the topic held at start.
 */
@Component
public class FlowCatalog extends FlowsView {

    private static final Duration LOAD_TIMEOUT = Duration.ofSeconds(10);

    public FlowCatalog(KafkaSettings kafka) {
        super(kafka);
    }

    /** Every flow, most recently updated first. */
    public Mono<List<FlowRecord>> all() {
        return loaded().then(Mono.fromSupplier(() -> flows().stream()
                .sorted(Comparator.comparingLong(FlowRecord::updatedAt).reversed()
                        .thenComparing(FlowRecord::id))
                .toList()));
    }

    /**
     * The pinned version to start an order on: 404 for an unknown flow or version, 409 when the flow has never been
     * published and no version was asked for.
     */
    public Mono<FlowVersion> resolve(String flowId, Integer version) {
        return loaded().then(Mono.fromCallable(() -> {
            FlowRecord flow = flow(flowId);
            if (flow == null) {
                throw ApiException.notFound("Flow " + flowId + " not found");
            }
            if (version == null && flow.publishedVersion() == null) {
                throw ApiException.conflict("Flow " + flowId + " has no published version");
            }
            return flow.resolve(version).orElseThrow(
                    () -> ApiException.notFound("Flow " + flowId + " has no version " + version));
        }));
    }

    private Mono<Void> loaded() {
        return Mono.fromFuture(caughtUp(), false).timeout(LOAD_TIMEOUT)
                .onErrorMap(TimeoutException.class, e -> ApiException.unavailable("Flows are still loading"));
    }
}
