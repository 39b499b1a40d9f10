package io.orderflow.schemas.query;

import com.fasterxml.jackson.annotation.JsonInclude;
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
    /**
     * The approvals inbox by status ({@code all} for every row) and assignee, soonest deadline first, a page of
     * {@link #APPROVALS_PAGE} at a time: answered as {@link ApprovalList}.
     */
    public static final String APPROVALS = "/internal/approvals";
    /** Orders by status, with the list's filters: {@code {counts: {status: n}, total: n}}. */
    public static final String ORDER_COUNTS = "/internal/order-counts";
    public static final String INCIDENTS = "/internal/incidents";
    /** The field of {@link #INCIDENTS}' answer: {@code {incidents: [incidents, newest first]}}. */
    public static final String INCIDENT_ROWS = "incidents";

    /**
     * Query parameter of {@link #ORDERS}: {@code true} puts the next page's cursor in the {@link #NEXT_HEADER} header
     * instead of the body, so the answer's body is the contract's {@code {orders}} as it is (the gateway passes it on
     * without reading it).
     */
    public static final String CURSOR_IN_HEADER = "cursorInHeader";
    /** The header of a {@link #CURSOR_IN_HEADER} answer that carries the next page's cursor, when there is one. */
    public static final String NEXT_HEADER = "Orderflow-Next";

    /** Query parameter: {@code true} answers from this instance only (the fan-out calls of a scatter-gather). */
    public static final String LOCAL = "local";
    public static final String STATUS = "status";

    /** The field of {@link OrderList} holding the rows. */
    public static final String ORDER_ROWS = "orders";
    /** The field of {@link ApprovalList} holding the rows. */
    public static final String APPROVAL_ROWS = "approvals";

    /** The spec's limit: a list answers at most 200 rows. */
    public static final int LIST_MAX = 200;
    /** The rows of one page of the approvals inbox. */
    public static final int APPROVALS_PAGE = 100;
    /** The field of a paged answer holding the cursor of the next page; absent on the last page. */
    public static final String NEXT = "next";
    /** Sort orders of the list: by creation (the default) or by last change, newest first either way. */
    public static final String SORT_CREATED = "created";
    public static final String SORT_UPDATED = "updated";

    private OrderQueries() {
    }

    /**
     * The entity tag of an order at {@code version}, {@code "<version>"}: the {@code ETag} of {@link #ORDER}'s answer
     * and of the public read, and what {@code If-Match} and {@code If-None-Match} name.
     */
    public static String etag(long version) {
        return "\"" + version + "\"";
    }

    /**
     * The list query: each filter is optional; {@code limit} is held to 0..{@value #LIST_MAX}. {@code since} and
     * {@code until} bound {@code createdAt} (epoch milliseconds, inclusive); {@code sort} is {@value #SORT_CREATED}
     * or {@value #SORT_UPDATED}; {@code cursor} is the {@value #NEXT} of the page before.
     */
    public record ListQuery(String type, String status, String q, Long since, Long until, String sort, String cursor,
                            int limit) {

        public ListQuery {
            limit = Math.max(0, Math.min(limit, LIST_MAX));
            sort = sort == null || sort.isBlank() ? SORT_CREATED : sort;
        }

        public ListQuery(String type, String status, String q, int limit) {
            this(type, status, q, null, null, null, null, limit);
        }

        /** The whole list (up to the cap) with these filters. */
        public static ListQuery of(String type, String status, String q) {
            return new ListQuery(type, status, q, LIST_MAX);
        }

        /** Whether the rows go by last change rather than by creation. */
        public boolean byUpdate() {
            return SORT_UPDATED.equals(sort);
        }

        /** The same query without its limit and cursor: what the counts are taken over. */
        public ListQuery unpaged() {
            return new ListQuery(type, status, q, since, until, sort, null, LIST_MAX);
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
            if (since != null) {
                parameters.put("since", since);
            }
            if (until != null) {
                parameters.put("until", until);
            }
            if (!SORT_CREATED.equals(sort)) {
                parameters.put("sort", sort);
            }
            if (cursor != null) {
                parameters.put("cursor", cursor);
            }
            parameters.put("limit", limit);
            return parameters;
        }
    }

    /**
     * The answer of {@link #ORDERS}: {@code {orders: [index rows, newest first]}}, with {@code next} when more rows
     * follow.
     */
    public record OrderList(List<JsonNode> orders, @JsonInclude(JsonInclude.Include.NON_NULL) String next) {

        public OrderList {
            orders = orders == null ? List.of() : List.copyOf(orders);
        }

        public OrderList(List<JsonNode> orders) {
            this(orders, null);
        }

        /** At most {@value #LIST_MAX} rows, whatever was sent. */
        public OrderList capped() {
            return orders.size() <= LIST_MAX ? this : new OrderList(orders.subList(0, LIST_MAX), next);
        }
    }

    /**
     * The answer of {@link #APPROVALS}: {@code {approvals: [approval rows, soonest deadline first]}}, with
     * {@value #NEXT} when more rows follow.
     */
    public record ApprovalList(List<JsonNode> approvals) {

        public ApprovalList {
            approvals = approvals == null ? List.of() : List.copyOf(approvals);
        }
    }
}
