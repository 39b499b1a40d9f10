package io.orderflow.runner.nodes;

/**
 * Something a connector holds for the order.
 *
 * @param kind {@code stock}, {@code authorization} or {@code shipment}
 * @param open still held (not yet consumed, captured, delivered or compensated)
 */
public record Hold(String kind, String id, String nodeId, boolean open) {
}
