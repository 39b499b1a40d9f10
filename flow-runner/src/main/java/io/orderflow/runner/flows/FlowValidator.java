package io.orderflow.runner.flows;

import io.orderflow.runner.nodes.Node;
import io.orderflow.runner.nodes.NodeCatalogue;
import io.orderflow.runner.scope.Expressions;
import io.orderflow.schemas.flows.EdgeDefinition;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.NodeDefinition;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Checks a flow before it is published; every problem found is listed in one {@link InvalidFlowException}. */
public final class FlowValidator {

    private final NodeCatalogue catalogue;

    public FlowValidator(NodeCatalogue catalogue) {
        this.catalogue = catalogue;
    }

    public void validate(FlowDefinition flow) {
        List<String> problems = new ArrayList<>();
        if (flow.id() == null || flow.id().isBlank()) {
            problems.add("Flow has no id");
        }
        if (flow.orderType() == null) {
            problems.add("Flow " + flow.id() + " has no valid orderType");
        }
        List<NodeDefinition> nodes = flow.nodes() == null ? List.of() : flow.nodes();
        List<EdgeDefinition> edges = flow.edges() == null ? List.of() : flow.edges();
        if (nodes.isEmpty()) {
            problems.add("Flow " + flow.id() + " has no nodes");
            throw new InvalidFlowException(flow.id(), problems);
        }
        Set<String> ids = new HashSet<>();
        for (NodeDefinition node : nodes) {
            if (node.id() == null || !ids.add(node.id())) {
                problems.add("Duplicate or missing node id " + node.id());
            }
            if (catalogue.find(node.type()).isEmpty()) {
                problems.add("Node " + node.id() + " has unknown type '" + node.type() + "' (known: "
                        + String.join(", ", catalogue.types()) + ")");
            }
            if ("condition".equals(node.type())) {
                String expression = node.settings() == null ? null : node.settings().path("expression").asString(null);
                if (expression == null) {
                    problems.add("Condition node " + node.id() + " has no expression");
                } else {
                    try {
                        Expressions.parse(expression);
                    } catch (IllegalArgumentException e) {
                        problems.add("Condition node " + node.id() + ": " + e.getMessage());
                    }
                }
            }
        }
        Map<String, NodeDefinition> byId = nodes.stream()
                .collect(Collectors.toMap(NodeDefinition::id, Function.identity(), (a, b) -> a));
        Set<String> edgeIds = new HashSet<>();
        for (EdgeDefinition edge : edges) {
            if (edge.id() == null || !edgeIds.add(edge.id())) {
                problems.add("Duplicate or missing edge id " + edge.id());
            }
            if (edge.from() == null) {
                problems.add("Edge " + edge.id() + " has no from");
            } else if (!byId.containsKey(edge.from())) {
                problems.add("Edge " + edge.id() + " starts at unknown node '" + edge.from() + "'");
            }
            if (edge.to() == null) {
                problems.add("Edge " + edge.id() + " has no to");
            } else if (!byId.containsKey(edge.to())) {
                problems.add("Edge " + edge.id() + " points to unknown node '" + edge.to() + "'");
            }
            NodeDefinition from = byId.get(edge.from());
            if (from != null && edge.branch() != null) {
                catalogue.find(from.type()).map(Node::branches).filter(b -> !b.contains(edge.branch()))
                        .ifPresent(b -> problems.add("Edge " + edge.id() + " uses branch '" + edge.branch()
                                + "' that node " + from.id() + " (" + from.type() + ") does not have"
                                + (b.isEmpty() ? "" : " (branches: " + String.join(", ", b) + ")")));
            }
        }
        if (!endReachable(nodes.getFirst().id(), byId, edges)) {
            problems.add("No End node is reachable from the start node " + nodes.getFirst().id());
        }
        if (!problems.isEmpty()) {
            throw new InvalidFlowException(flow.id(), problems);
        }
    }

    private static boolean endReachable(String start, Map<String, NodeDefinition> byId, List<EdgeDefinition> edges) {
        Deque<String> queue = new ArrayDeque<>(List.of(start));
        Set<String> seen = new HashSet<>(queue);
        while (!queue.isEmpty()) {
            String id = queue.removeFirst();
            NodeDefinition node = byId.get(id);
            if (node != null && "end".equals(node.type())) {
                return true;
            }
            // an edge missing an end is reported by validate; here it just leads nowhere
            edges.stream().filter(e -> e.from() != null && e.from().equals(id) && e.to() != null && seen.add(e.to()))
                    .forEach(e -> queue.add(e.to()));
        }
        return false;
    }

    /** A flow that cannot be published, with every reason. */
    public static final class InvalidFlowException extends IllegalArgumentException {

        private final List<String> problems;

        public InvalidFlowException(String flowId, List<String> problems) {
            super("Flow " + flowId + " is invalid: " + String.join("; ", problems));
            this.problems = List.copyOf(problems);
        }

        public List<String> problems() {
            return problems;
        }
    }
}
