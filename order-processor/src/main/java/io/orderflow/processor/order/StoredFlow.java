package io.orderflow.processor.order;

import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.flows.NodeDefinition;

/**
 * The pinned flow as an order's stored state keeps it: the version's reference ({@code flowId}, {@code version},
 * {@code publishedAt}) and of its graph only each node's id and type, which the agent needs (whether a node is timed).
 * The whole graph is immutable and on the {@code flows} topic, so the view adds it on read instead of every order
 * carrying, storing and re-serialising it on every report. States stored before this hold the whole graph; they load
 * and are shown as they are.
 */
public final class StoredFlow {

    private StoredFlow() {
    }

    /** The reference and node types of {@code flow}: a graph without name, order type, titles, settings and edges. */
    public static FlowVersion slim(FlowVersion flow) {
        if (flow == null || flow.graph() == null) {
            return flow;
        }
        FlowDefinition graph = flow.graph();
        return new FlowVersion(flow.flowId(), flow.version(), flow.publishedAt(), new FlowDefinition(graph.id(), null,
                null, null, graph.nodes() == null ? null : graph.nodes().stream()
                        .map(n -> new NodeDefinition(n.id(), n.type(), null, null, null)).toList(), null));
    }

    /**
     * Whether {@code flow} is a reference whose graph the view must fill in. A published graph always has its order
     * type (publishing rejects one without), so a graph without it is the stored reference.
     */
    public static boolean isSlim(FlowVersion flow) {
        return flow != null && (flow.graph() == null || flow.graph().orderType() == null);
    }
}
