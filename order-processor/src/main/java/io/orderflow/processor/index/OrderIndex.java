package io.orderflow.processor.index;

import io.orderflow.processor.order.OrderState;
import io.orderflow.processor.order.Wait;
import io.orderflow.schemas.model.OrderIndexRow;
import io.orderflow.schemas.model.OrderType;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** The order index: one row per order, keyed so that the store iterates newest first. */
public final class OrderIndex {

    /** Newest first; equal start times by order id. */
    public static final Comparator<OrderIndexRow> NEWEST_FIRST =
            Comparator.comparingLong(OrderIndexRow::createdAt).reversed().thenComparing(OrderIndexRow::id);

    private OrderIndex() {
    }

    /** Zero-padded {@code Long.MAX_VALUE - createdAt}, then the id: string order is newest first. */
    public static String key(long createdAt, String orderId) {
        return String.format("%019d", Long.MAX_VALUE - createdAt) + "|" + orderId;
    }

    public static String key(OrderState state) {
        return key(state.createdAt(), state.orderId());
    }

    public static OrderIndexRow rowOf(OrderState state) {
        JsonNode order = state.order();
        String waitingOn = state.waits().stream().map(Wait::title).collect(Collectors.joining(" · "));
        return new OrderIndexRow(state.orderId(), OrderType.fromWire(text(order, "type")), state.status(),
                text(order, "title"), state.flow().flowId(), state.flow().version(), state.instanceId(),
                state.generation(), text(order, "customerId"), text(order, "currency"),
                order != null && order.hasNonNull("total") ? order.get("total").decimalValue() : null,
                waitingOn, state.createdAt(), state.updatedAt(), searchText(order));
    }

    /**
     * What {@code q} matches beyond id, title and customer id: each line's SKU and name, and the customer's name as
     * the order carries it ({@code meta.customerName}), lower case and joined by newlines; null when there is none.
     */
    static String searchText(JsonNode order) {
        if (order == null) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        for (JsonNode line : order.path("lines")) {
            addText(parts, line.get("sku"));
            addText(parts, line.get("name"));
        }
        addText(parts, order.path("meta").get("customerName"));
        addText(parts, order.get("customerName"));
        return parts.isEmpty() ? null : String.join("\n", parts).toLowerCase(Locale.ROOT);
    }

    private static void addText(List<String> parts, JsonNode value) {
        if (value != null && value.isString() && !value.asString().isBlank()) {
            parts.add(value.asString());
        }
    }

    /**
     * The list filters: order type, status, {@code createdAt} within {@code since..until} (inclusive, either open),
     * and {@code q} (case-insensitive) on id, title, customer id, SKUs, line names or customer name.
     */
    public static boolean matches(OrderIndexRow row, String type, String status, String q, Long since, Long until) {
        return (since == null || row.createdAt() >= since) && (until == null || row.createdAt() <= until)
                && matches(row, type, status, q);
    }

    /** The list filters: order type, status, and {@code q} (case-insensitive) on the row's text. */
    public static boolean matches(OrderIndexRow row, String type, String status, String q) {
        if (type != null && !type.isBlank() && (row.type() == null || !row.type().wire().equals(type))) {
            return false;
        }
        if (status != null && !status.isBlank() && !row.status().wire().equals(status)) {
            return false;
        }
        if (q == null || q.isBlank()) {
            return true;
        }
        String needle = q.toLowerCase(java.util.Locale.ROOT);
        return contains(row.id(), needle) || contains(row.title(), needle) || contains(row.customerId(), needle)
                || contains(row.search(), needle);
    }

    private static boolean contains(String value, String needle) {
        return value != null && value.toLowerCase(java.util.Locale.ROOT).contains(needle);
    }

    private static String text(JsonNode node, String field) {
        return node != null && node.hasNonNull(field) ? node.get(field).asString() : null;
    }
}
