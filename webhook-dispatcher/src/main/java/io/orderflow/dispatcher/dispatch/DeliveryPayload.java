package io.orderflow.dispatcher.dispatch;

import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.json.Json;
import tools.jackson.databind.node.ObjectNode;

/** The body of a delivery, the same whether the event is fanned out or replayed. */
public final class DeliveryPayload {

    private DeliveryPayload() {
    }

    /** {@code {id, event, occurredAt, orderId, data}}, the contract's delivery body. */
    public static ObjectNode of(OrderEvent event, String deliveryId) {
        ObjectNode payload = Json.object();
        payload.put("id", deliveryId);
        payload.put("event", event.event());
        payload.put("occurredAt", event.occurredAt());
        payload.put("orderId", event.orderId());
        payload.set("data", event.data() == null ? Json.object() : event.data());
        return payload;
    }
}
