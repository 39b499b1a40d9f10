package io.orderflow.schemas.events;

import io.orderflow.schemas.model.OrderStatus;

/**
 * A notice per state change of an order, on {@code order-updates}.
 *
 * @param version increases with every change of the live state
 * @param at      epoch milliseconds
 */
public record OrderUpdate(String orderId, OrderStatus status, long version, long at) {
}
