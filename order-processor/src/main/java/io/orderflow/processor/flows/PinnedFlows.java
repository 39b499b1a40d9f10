package io.orderflow.processor.flows;

import io.orderflow.kafka.FlowsView;
import io.orderflow.processor.ProcessorProperties;
import io.orderflow.schemas.flows.FlowRecord;
import io.orderflow.schemas.flows.FlowVersion;
import java.util.Optional;
import org.springframework.stereotype.Component;

/**
 * The processor's view of the compacted {@code flows} topic: the published versions the order view takes a pinned
 * flow's graph from (the stored state keeps only a reference, {@link io.orderflow.processor.order.StoredFlow}).
 * Versions are immutable, so a version seen once never changes.
 */
@Component
public class PinnedFlows extends FlowsView {

    public PinnedFlows(ProcessorProperties settings) {
        super(settings.kafka());
    }

    /** The published version {@code version} of flow {@code flowId}, if the view has it. */
    public Optional<FlowVersion> version(String flowId, int version) {
        FlowRecord flow = flowId == null ? null : flow(flowId);
        return flow == null ? Optional.empty() : flow.resolve(version);
    }
}
