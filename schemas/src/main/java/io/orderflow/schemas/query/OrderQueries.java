package io.orderflow.schemas.query;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * The order-processor's internal interactive-query API, as the processor serves it and the gateway (and other
 * processor instances) call it: its paths, the list query's parameters and cap, and the shape of the list answers.
 */
public final class OrderQueries {

    /** One order's live state: 200 with the state, 404 {@code {error}} for an unknown order. */
    public static final String ORDER = "/internal/orders/{id}";
    /** Index rows, newest first, filtered by {@link ListQuery}: answered as {@link OrderList}. */
    public static final String ORDERS = "/internal/orders";
    /** The approvals inbox by status ({@code all} for every row): answered as {@link ApprovalList}. */
    public static final String APPROVALS = "/internal/approvals";
    public static final String INCIDENTS = "/internal/incidents";
    /** The field of {@link #INCIDENTS}' answer: {@code {incidents: [incidents, newest first]}}. */
    public static final String INCIDENT_ROWS = "incidents";

    /** Query parameter: {@code true} answers from this instance only (the fan-out calls of a scatter-gather). */
    public static final String LOCAL = "local";
    public static final String STATUS = "status";

    /** The field of {@link OrderList} holding the rows. */
    public static final String ORDER_ROWS = "orders";
    /** The field of {@link ApprovalList} holding the rows. */
    public static final String APPROVAL_ROWS = "approvals";

    /** The spec's limit: a list answers at most 200 rows. */
    public static final int LIST_MAX = 200;

    private OrderQueries() {
    }

    /**
     * The list query: each filter is optional; {@code limit} is held to 0..{@value #LIST_MAX}.
     */
    public record ListQuery(String type, String status, String q, int limit) {

        public ListQuery {
            limit = Math.max(0, Math.min(limit, LIST_MAX));
        }

        /** The whole list (up to the cap) with these filters. */
        public static ListQuery of(String type, String status, String q) {
            return new ListQuery(type, status, q, LIST_MAX);
        }

        /** The query parameters, in order, the absent filters left out: name to value. */
        public Map<String, Object> parameters() {
            Map<String, Object> parameters = new LinkedHashMap<>();
            if (type != null) {
                parameters.put("type", type);
            }
            if (status != null) {
                parameters.put(STATUS, status);
            }
            if (q != null) {
                parameters.put("q", q);
            }
            parameters.put("limit", limit);
            return parameters;
        }
    }

    /** The answer of {@link #ORDERS}: {@code {orders: [index rows, newest first]}}. */
    public record OrderList(List<JsonNode> orders) {

        public OrderList {
            orders = orders == null ? List.of() : List.copyOf(orders);
        }

        /** At most {@value #LIST_MAX} rows, whatever was sent. */
        public OrderList capped() {
            return orders.size() <= LIST_MAX ? this : new OrderList(orders.subList(0, LIST_MAX));
        }
    }

    /** The answer of {@link #APPROVALS}: {@code {approvals: [approval rows, newest first]}}. */
    public record ApprovalList(List<JsonNode> approvals) {

        public ApprovalList {
            approvals = approvals == null ? List.of() : List.copyOf(approvals);
        }
    }
}
