package io.orderflow.dispatcher.deliveries;

import tools.jackson.databind.JsonNode;

/**
 * A delivery record as stored on {@code webhook-deliveries} (key: {@link #id}); every status change writes the whole
 * record again.
 *
 * @param payload        the request body sent: {@code {id, event, occurredAt, orderId, data}}
 * @param attempts       attempts made so far
 * @param responseStatus HTTP status of the last answer, {@code null} when there was none
 * @param lastError      why the last attempt failed, {@code null} after a success
 * @param createdAt      epoch milliseconds: the event's time ({@code occurredAt}) for a delivery made from an order
 *                       event; when the replay was asked for, for a replayed one
 * @param deliveredAt    epoch milliseconds of the successful attempt
 */
public record Delivery(String id, String subscriptionId, String event, String orderId, JsonNode payload,
                       DeliveryStatus status, int attempts, Integer responseStatus, String lastError,
                       long createdAt, Long deliveredAt) {

    public boolean settled() {
        return status != DeliveryStatus.PENDING;
    }

    /** The record as the API lists it. */
    public View view() {
        return new View(id, event, orderId, payload, status, attempts, responseStatus, lastError, createdAt,
                deliveredAt);
    }

    public record View(String id, String event, String orderId, JsonNode payload, DeliveryStatus status,
                       int attempts, Integer responseStatus, String lastError, long createdAt, Long deliveredAt) {
    }
}
