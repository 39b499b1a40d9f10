package io.orderflow.gateway.chat;

import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.query.OrderView;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The brief of an order the model sees (rule 3) and {@code get_state} returns: status, order, waits, vars, the nodes
 * that are not pending, and the last 10 timeline messages. Made from the live state the query path answers.
 */
public final class Brief {

    static final int TIMELINE_MESSAGES = 10;

    private Brief() {
    }

    /**
     * The brief as the model reads it. {@code reason} only when the order has one; {@code order} and {@code vars} an
     * empty object when the state has none.
     */
    record Shown(String orderId, OrderStatus status, String reason, JsonNode order, List<OrderView.Wait> waits,
                 JsonNode vars, Map<String, OrderView.Node> nodes, List<String> timeline) {
    }

    public static ObjectNode of(OrderView state) {
        Map<String, OrderView.Node> nodes = new LinkedHashMap<>();
        state.nodes().forEach((id, node) -> {
            if (node.status() != NodeStatus.PENDING) {
                nodes.put(id, node);
            }
        });
        List<String> messages = new ArrayList<>();
        state.timeline().forEach(entry -> {
            if (entry.message() != null) {
                messages.add(entry.message());
            }
        });
        return (ObjectNode) Json.tree(new Shown(state.orderId(), state.status(), state.reason(),
                state.order() != null ? state.order() : Json.object(), state.waits(),
                state.vars() != null ? state.vars() : Json.object(), nodes,
                messages.subList(Math.max(0, messages.size() - TIMELINE_MESSAGES), messages.size())));
    }

    static String status(OrderView state) {
        return state.status() != null ? state.status().wire() : "unknown";
    }

    /** The open approval waits of the state. */
    static List<OrderView.Wait> approvalWaits(OrderView state) {
        return state.waits().stream().filter(OrderView.Wait::approval).toList();
    }

    /** The events open waits are waiting for (approvals excluded). */
    static List<String> awaitedEvents(OrderView state) {
        return state.waits().stream().filter(w -> !w.approval() && w.event() != null).map(OrderView.Wait::event)
                .toList();
    }

    /** One line about the order's status, as the heuristic replies it: "Order ord_x is waiting on: Approve order." */
    static String statusLine(OrderView state) {
        String id = state.orderId() != null ? state.orderId() : "the order";
        StringBuilder line = new StringBuilder("Order ").append(id).append(" is ")
                .append(status(state).replace('_', ' '));
        if (state.reason() != null && !state.reason().isBlank()) {
            line.append(" (").append(state.reason()).append(")");
        }
        List<String> waiting = new ArrayList<>();
        for (OrderView.Wait w : state.waits()) {
            String event = w.event() != null ? w.event() : "";
            String title = w.title() != null ? w.title() : w.event() != null ? w.event() : "a wait";
            waiting.add(title + (w.approval() ? " (approval)" : " (event " + event + ")"));
        }
        if (!waiting.isEmpty()) {
            line.append(", waiting on: ").append(String.join(" · ", waiting));
        }
        return line.append(".").toString();
    }
}
