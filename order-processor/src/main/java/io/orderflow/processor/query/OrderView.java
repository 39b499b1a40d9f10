package io.orderflow.processor.query;

import io.orderflow.processor.order.OrderState;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.json.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The order's live state as the API shows it: the stored state without its private fields and timeline keys. */
public final class OrderView {

    private OrderView() {
    }

    /** The view with the flow as stored (the whole graph for states stored before it was kept as a reference). */
    public static ObjectNode of(OrderState state) {
        return of(state, state.flow());
    }

    /** The view with {@code flow}, the pinned version with its whole graph, in place of the stored reference. */
    public static ObjectNode of(OrderState state, FlowVersion flow) {
        ObjectNode view = (ObjectNode) Json.tree(state);
        if (flow != null) {
            view.set("flow", Json.tree(flow));
        }
        OrderState.PRIVATE_FIELDS.forEach(view::remove);
        JsonNode timeline = view.get("timeline");
        if (timeline != null) {
            timeline.forEach(entry -> ((ObjectNode) entry).remove("key"));
        }
        return view;
    }
}
