package io.orderflow.processor.query;

import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.query.OrderQueries;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Keyset paging over rows gathered from every instance. Rows are ordered by one number (a time) and then by an id,
 * so a page ends at a position that stays put while rows are added or changed elsewhere; the cursor of the next page
 * is that position, written as {@code <order>:<number>:<id>} in base64url. Each instance answers one page past the
 * cursor; the merged page is the first {@code limit} rows of all of them.
 */
public final class Pages {

    /** An order of rows: its name (part of the cursor), the number it sorts by, which way, and the tie-breaking id. */
    public record Order(String name, ToLongFunction<JsonNode> number, boolean descending,
                        Function<JsonNode, String> id) {

        Comparator<JsonNode> comparator() {
            Comparator<JsonNode> byNumber = Comparator.comparingLong(number);
            return (descending ? byNumber.reversed() : byNumber).thenComparing(id);
        }

        int compare(JsonNode row, Position position) {
            int byNumber = Long.compare(number.applyAsLong(row), position.number());
            if (descending) {
                byNumber = -byNumber;
            }
            return byNumber != 0 ? byNumber : id.apply(row).compareTo(position.id());
        }
    }

    /** Index rows newest first by creation, as the list has always gone. */
    public static final Order CREATED = new Order(OrderQueries.SORT_CREATED, row -> row.path("createdAt").asLong(),
            true, row -> row.path("id").asString(""));
    /** Index rows most recently changed first. */
    public static final Order UPDATED = new Order(OrderQueries.SORT_UPDATED, row -> row.path("updatedAt").asLong(),
            true, row -> row.path("id").asString(""));

    /** A cursor that is not one this service wrote, or one of another order. */
    public static final class BadCursor extends IllegalArgumentException {
        BadCursor() {
            super("The cursor is not valid for this list; start again from the first page");
        }
    }

    /** Where a page ended. */
    public record Position(long number, String id) {
    }

    private Pages() {
    }

    public static String cursor(Order order, JsonNode lastRow) {
        String raw = order.name() + ":" + order.number().applyAsLong(lastRow) + ":" + order.id().apply(lastRow);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw.getBytes(StandardCharsets.UTF_8));
    }

    /** The position a cursor of this order names; {@link BadCursor} for anything else. */
    public static Position position(Order order, String cursor) {
        try {
            String raw = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
            String[] parts = raw.split(":", 3);
            if (parts.length != 3 || !parts[0].equals(order.name())) {
                throw new BadCursor();
            }
            return new Position(Long.parseLong(parts[1]), parts[2]);
        } catch (IllegalArgumentException e) {
            throw e instanceof BadCursor bad ? bad : new BadCursor();
        }
    }

    /**
     * The page after {@code cursor} (from the start when null): {@code {<field>: [at most limit rows], next?}}.
     * {@code moreElsewhere} says that an instance had rows beyond the ones it sent, so a next page exists even when
     * the rows here fit.
     */
    public static ObjectNode page(String field, List<JsonNode> rows, Order order, String cursor, int limit,
                                  boolean moreElsewhere) {
        Position after = cursor == null || cursor.isBlank() ? null : position(order, cursor);
        List<JsonNode> sorted = new ArrayList<>();
        for (JsonNode row : rows) {
            if (after == null || order.compare(row, after) > 0) {
                sorted.add(row);
            }
        }
        sorted.sort(order.comparator());
        int size = Math.max(0, limit);
        ObjectNode body = Json.object();
        ArrayNode out = body.putArray(field);
        sorted.stream().limit(size).forEach(out::add);
        if (size > 0 && (sorted.size() > size || moreElsewhere && sorted.size() >= size)) {
            body.put(OrderQueries.NEXT, cursor(order, sorted.get(size - 1)));
        }
        return body;
    }
}
