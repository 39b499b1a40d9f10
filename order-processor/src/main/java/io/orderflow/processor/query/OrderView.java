package io.orderflow.processor.query;

import io.orderflow.processor.order.OrderState;
import io.orderflow.schemas.json.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The order's live state as the API shows it: the stored state without its private fields and timeline keys. */
public final class OrderView {

    private OrderView() {
    }

    public static ObjectNode of(OrderState state) {
        ObjectNode view = (ObjectNode) Json.tree(state);
        OrderState.PRIVATE_FIELDS.forEach(view::remove);
        JsonNode timeline = view.get("timeline");
        if (timeline != null) {
            timeline.forEach(entry -> ((ObjectNode) entry).remove("key"));
        }
        return view;
    }
}
