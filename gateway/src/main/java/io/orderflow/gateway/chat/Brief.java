package io.orderflow.gateway.chat;

import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderStatus;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The brief of an order the model sees (rule 3) and {@code get_state} returns: status, order, waits, vars, the nodes
 * that are not pending, and the last 10 timeline messages. Made from the live state the query path answers.
 */
public final class Brief {

    static final int TIMELINE_MESSAGES = 10;

    private Brief() {
    }

    public static ObjectNode of(JsonNode state) {
        ObjectNode brief = Json.object();
        brief.set("orderId", state.get("orderId"));
        brief.set("status", state.get("status"));
        if (state.hasNonNull("reason")) {
            brief.set("reason", state.get("reason"));
        }
        brief.set("order", state.has("order") ? state.get("order") : Json.object());
        brief.set("waits", state.has("waits") ? state.get("waits") : Json.MAPPER.createArrayNode());
        brief.set("vars", state.has("vars") ? state.get("vars") : Json.object());
        ObjectNode nodes = brief.putObject("nodes");
        JsonNode all = state.get("nodes");
        if (all != null && all.isObject()) {
            for (var entry : all.properties()) {
                JsonNode status = entry.getValue().get("status");
                if (status == null || !"pending".equals(status.asString())) {
                    nodes.set(entry.getKey(), entry.getValue());
                }
            }
        }
        ArrayNode timeline = brief.putArray("timeline");
        JsonNode entries = state.get("timeline");
        if (entries != null && entries.isArray()) {
            List<String> messages = new ArrayList<>();
            entries.forEach(entry -> {
                if (entry.hasNonNull("message")) {
                    messages.add(entry.get("message").asString());
                }
            });
            messages.subList(Math.max(0, messages.size() - TIMELINE_MESSAGES), messages.size()).forEach(timeline::add);
        }
        return brief;
    }

    static String status(JsonNode state) {
        return state.hasNonNull("status") ? state.get("status").asString() : "unknown";
    }

    /** Whether the state's status is a terminal one ({@link OrderStatus#terminal()}). */
    static boolean ended(JsonNode state) {
        OrderStatus status = OrderStatus.fromWire(status(state));
        return status != null && status.terminal();
    }

    /** The open approval waits of the state. */
    static List<JsonNode> approvalWaits(JsonNode state) {
        List<JsonNode> waits = new ArrayList<>();
        JsonNode all = state.get("waits");
        if (all != null && all.isArray()) {
            all.forEach(w -> {
                if ("approval".equals(w.path("kind").asString(""))) {
                    waits.add(w);
                }
            });
        }
        return waits;
    }

    /** The events open waits are waiting for (approvals excluded). */
    static List<String> awaitedEvents(JsonNode state) {
        List<String> events = new ArrayList<>();
        JsonNode all = state.get("waits");
        if (all != null && all.isArray()) {
            all.forEach(w -> {
                if (!"approval".equals(w.path("kind").asString("")) && w.hasNonNull("event")) {
                    events.add(w.get("event").asString());
                }
            });
        }
        return events;
    }

    /** One line about the order's status, as the heuristic replies it: "Order ord_x is waiting on: Approve order." */
    static String statusLine(JsonNode state) {
        String id = state.path("orderId").asString("the order");
        String status = status(state);
        StringBuilder line = new StringBuilder("Order ").append(id).append(" is ").append(status.replace('_', ' '));
        if (state.hasNonNull("reason") && !state.get("reason").asString().isBlank()) {
            line.append(" (").append(state.get("reason").asString()).append(")");
        }
        List<String> waiting = new ArrayList<>();
        JsonNode all = state.get("waits");
        if (all != null && all.isArray()) {
            all.forEach(w -> waiting.add(w.path("title").asString(w.path("event").asString("a wait"))
                    + ("approval".equals(w.path("kind").asString("")) ? " (approval)"
                    : " (event " + w.path("event").asString("") + ")")));
        }
        if (!waiting.isEmpty()) {
            line.append(", waiting on: ").append(String.join(" · ", waiting));
        }
        return line.append(".").toString();
    }
}
