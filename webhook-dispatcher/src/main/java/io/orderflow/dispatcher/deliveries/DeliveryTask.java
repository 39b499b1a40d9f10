package io.orderflow.dispatcher.deliveries;

import tools.jackson.databind.JsonNode;

/**
 * One delivery to do, on the attempts topic (key: delivery id) and, unchanged, on its retry and dead-letter topics.
 * The subscriber's url and secret are looked up at each attempt, so a deleted subscription gets nothing more.
 *
 * @param payload    the exact body to send, the same on every attempt
 * @param maxRetries retries this delivery gets after its first attempt
 * @param createdAt  epoch milliseconds: the event's time for a delivery made from an order event, the replay's for a
 *                   replayed one; its delivery lag runs from it
 */
public record DeliveryTask(String deliveryId, String subscriptionId, String event, String orderId, JsonNode payload,
                           int maxRetries, long createdAt) {

    public Delivery record(DeliveryStatus status, int attempts, Integer responseStatus, String lastError,
                           Long deliveredAt) {
        return new Delivery(deliveryId, subscriptionId, event, orderId, payload, status, attempts, responseStatus,
                lastError, createdAt, deliveredAt);
    }
}
