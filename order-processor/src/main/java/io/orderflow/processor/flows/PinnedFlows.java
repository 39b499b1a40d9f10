package io.orderflow.processor.flows;

import io.orderflow.kafka.CompactedTopicView;
import io.orderflow.processor.ProcessorProperties;
import io.orderflow.schemas.flows.FlowRecord;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.topics.Topics;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/**
 * The processor's view of the compacted {@code flows} topic: the published versions the order view takes a pinned
 * flow's graph from (the stored state keeps only a reference, {@link io.orderflow.processor.order.StoredFlow}).
 * Versions are immutable, so a version seen once never changes.
 */
@Component
public class PinnedFlows extends CompactedTopicView<String, FlowRecord> {

    private final Map<String, FlowRecord> flows = new ConcurrentHashMap<>();

    public PinnedFlows(ProcessorProperties settings) {
        super(settings.kafka(), Topics.FLOWS);
    }

    @Override
    protected void apply(String id, FlowRecord flow) {
        if (flow == null) {
            flows.remove(id);
        } else {
            flows.put(id, flow);
        }
    }

    /** The published version {@code version} of flow {@code flowId}, if the view has it. */
    public Optional<FlowVersion> version(String flowId, int version) {
        FlowRecord flow = flowId == null ? null : flows.get(flowId);
        return flow == null ? Optional.empty() : flow.resolve(version);
    }
}
