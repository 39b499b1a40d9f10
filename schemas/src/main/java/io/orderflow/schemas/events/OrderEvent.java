package io.orderflow.schemas.events;

import tools.jackson.databind.JsonNode;

/**
 * An outbound business event on {@code order-events}.
 *
 * @param event      {@code order.paid}, {@code order.invoiced}, {@code order.shipped}, {@code order.refunded},
 *                   {@code order.completed}, {@code order.declined}, {@code order.cancelled} or {@code order.failed}
 * @param step       the sending step, unique per order (e.g. {@code <instanceId>:<nodeId>:<stepNo>} or
 *                   {@code cancel}); webhook delivery ids are derived from order, step and subscription
 * @param occurredAt epoch milliseconds
 * @param data       the event data, shaped by the sender (see the spec's "data shapes")
 * @param retries    how many retries deliveries of this event get ({@code null}: the default 5)
 */
public record OrderEvent(String event, String orderId, String step, long occurredAt, JsonNode data,
                         Integer retries) {

    public static final java.util.List<String> NAMES = java.util.List.of(
            "order.paid", "order.invoiced", "order.shipped", "order.refunded",
            "order.completed", "order.declined", "order.cancelled", "order.failed");
}
