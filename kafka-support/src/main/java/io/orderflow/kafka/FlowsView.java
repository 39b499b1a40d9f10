package io.orderflow.kafka;

import io.orderflow.schemas.flows.FlowRecord;
import io.orderflow.schemas.topics.Topics;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A view of the compacted {@code flows} topic: every flow by id, as last written. The gateway's catalogue and the
 * processor's pinned versions answer from it.
 */
public abstract class FlowsView extends CompactedTopicView<String, FlowRecord> {

    private final Map<String, FlowRecord> flows = new ConcurrentHashMap<>();

    protected FlowsView(KafkaSettings kafka) {
        super(kafka, Topics.FLOWS);
    }

    @Override
    protected final void apply(String id, FlowRecord flow) {
        if (flow == null) {
            flows.remove(id);
        } else {
            flows.put(id, flow);
        }
    }

    /** The flow {@code id}, or {@code null} when the view has none. */
    protected final FlowRecord flow(String id) {
        return flows.get(id);
    }

    /** Every flow the view holds, in no order. */
    protected final Collection<FlowRecord> flows() {
        return flows.values();
    }
}
