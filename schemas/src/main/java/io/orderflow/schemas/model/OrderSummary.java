package io.orderflow.schemas.model;

import java.math.BigDecimal;
import tools.jackson.databind.JsonNode;

/**
 * The order summary inside outbound event data. Amounts are in {@code currency}; {@code fxRate} is units of
 * {@code currency} per USD and {@code baseTotal} the total in USD. The one definition of its shape: the processor
 * (on cancel) and the runner (node, End and failure events) both build it with {@link #of}.
 */
public record OrderSummary(String id, OrderType type, String title, String customerId, String currency,
                           BigDecimal subtotal, BigDecimal tax, BigDecimal total, BigDecimal fxRate,
                           BigDecimal baseTotal) {

    /**
     * The summary of an order object as the run works on it ({@code id, type, title, customerId, currency} and the
     * amounts it has so far; a field the order does not have yet is left out). {@code orderId} stands in for a
     * missing {@code id}.
     */
    public static OrderSummary of(JsonNode order, String orderId) {
        String id = text(order, "id");
        String type = text(order, "type");
        return new OrderSummary(id != null ? id : orderId, type == null ? null : OrderType.fromWire(type),
                text(order, "title"), text(order, "customerId"), text(order, "currency"), decimal(order, "subtotal"),
                decimal(order, "tax"), decimal(order, "total"), decimal(order, "fxRate"), decimal(order, "baseTotal"));
    }

    private static String text(JsonNode order, String field) {
        return order != null && order.hasNonNull(field) ? order.get(field).asString() : null;
    }

    private static BigDecimal decimal(JsonNode order, String field) {
        return order != null && order.hasNonNull(field) && order.get(field).isNumber()
                ? order.get(field).decimalValue() : null;
    }
}
