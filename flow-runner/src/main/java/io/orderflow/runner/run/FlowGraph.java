package io.orderflow.runner.run;

import io.orderflow.schemas.flows.EdgeDefinition;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.flows.NodeDefinition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A pinned flow version in the form the decider steps through: nodes by id, the edges leaving each node (in the flow's
 * order) and the start node (the first). Built once per (flow id, version) and shared: published versions never
 * change, so no step has to search the node and edge lists again.
 */
record FlowGraph(String flowId, int version, NodeDefinition start, Map<String, NodeDefinition> nodes,
                 List<EdgeDefinition> edges, Map<String, List<EdgeDefinition>> outgoingByNode) {

    static FlowGraph of(FlowVersion flow) {
        FlowDefinition definition = flow.graph();
        Map<String, NodeDefinition> nodes = new LinkedHashMap<>();
        definition.nodes().forEach(node -> nodes.put(node.id(), node));
        List<EdgeDefinition> edges = definition.edges() == null ? List.of() : List.copyOf(definition.edges());
        Map<String, List<EdgeDefinition>> outgoing = new LinkedHashMap<>();
        for (EdgeDefinition edge : edges) {
            outgoing.computeIfAbsent(edge.from(), from -> new ArrayList<>()).add(edge);
        }
        outgoing.replaceAll((from, list) -> List.copyOf(list));
        return new FlowGraph(flow.flowId(), flow.version(), definition.nodes().getFirst(),
                Collections.unmodifiableMap(nodes), edges, Collections.unmodifiableMap(outgoing));
    }

    NodeDefinition node(String nodeId) {
        NodeDefinition node = nodes.get(nodeId);
        if (node == null) {
            throw new IllegalStateException("Flow " + flowId + " has no node " + nodeId);
        }
        return node;
    }

    /** The edges leaving {@code nodeId}, in the flow's order; none for an End node. */
    List<EdgeDefinition> outgoing(String nodeId) {
        return outgoingByNode.getOrDefault(nodeId, List.of());
    }

    /** Flow graphs by (flow id, version), each built on first use. Thread-safe: stream threads share the decider. */
    static final class Cache {

        private record Key(String flowId, int version) {
        }

        private final Map<Key, FlowGraph> graphs = new ConcurrentHashMap<>();

        FlowGraph of(FlowVersion flow) {
            return graphs.computeIfAbsent(new Key(flow.flowId(), flow.version()), key -> FlowGraph.of(flow));
        }

        int size() {
            return graphs.size();
        }
    }
}
