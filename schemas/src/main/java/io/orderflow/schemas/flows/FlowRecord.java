package io.orderflow.schemas.flows;

import io.orderflow.schemas.model.OrderType;
import java.util.List;
import java.util.Optional;

/**
 * A flow on the compacted {@code flows} topic, with all its published versions (oldest first).
 *
 * @param publishedVersion the latest published version, {@code null} until the first publish
 * @param updatedAt        epoch milliseconds
 */
public record FlowRecord(String id, String name, String description, OrderType orderType, Integer publishedVersion,
                         long updatedAt, List<FlowVersion> versions) {

    public FlowRecord {
        versions = versions == null ? List.of() : List.copyOf(versions);
    }

    /** The pinned version asked for, or the latest published one when {@code version} is {@code null}. */
    public Optional<FlowVersion> resolve(Integer version) {
        Integer wanted = version != null ? version : publishedVersion;
        return wanted == null ? Optional.empty()
                : versions.stream().filter(v -> v.version() == wanted).findFirst();
    }

    /** Number of nodes of the latest published version (0 before the first publish). */
    public int nodeCount() {
        return resolve(null).map(v -> v.graph().nodes().size()).orElse(0);
    }
}
