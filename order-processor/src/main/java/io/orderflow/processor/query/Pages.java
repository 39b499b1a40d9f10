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

        /** Which of two positions comes first: negative when {@code a} does. */
        int compare(Position a, Position b) {
            int byNumber = Long.compare(a.number(), b.number());
            if (descending) {
                byNumber = -byNumber;
            }
            return byNumber != 0 ? byNumber : a.id().compareTo(b.id());
        }

        Position position(JsonNode row) {
            return new Position(number.applyAsLong(row), id.apply(row));
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

    /**
     * One instance's answer to a page: its rows (at most the page's limit) and, when it has more, the position it
     * stopped at: the last row it sent, or the last it examined when it stopped short of a full page.
     */
    public record Answer(List<JsonNode> rows, Position next) {
    }

    private Pages() {
    }

    /** A cursor naming a position of this order. */
    public static String cursor(Order order, Position position) {
        String raw = order.name() + ":" + position.number() + ":" + position.id();
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * One page from the answers of every instance: {@code {<field>: [at most limit rows], next?}}. Every instance
     * has seen all its rows up to where it stopped, so the page keeps only rows up to the earliest such position (the
     * frontier) and, when it has fewer than {@code limit}, goes on from the frontier next time; no row is skipped
     * and none is shown twice.
     */
    public static ObjectNode merge(String field, List<Answer> answers, Order order, int limit) {
        Position frontier = null;
        List<JsonNode> rows = new ArrayList<>();
        for (Answer answer : answers) {
            rows.addAll(answer.rows());
            if (answer.next() != null && (frontier == null || order.compare(answer.next(), frontier) < 0)) {
                frontier = answer.next();
            }
        }
        Position stop = frontier;
        List<JsonNode> kept = rows.stream().filter(row -> stop == null || order.compare(row, stop) <= 0)
                .sorted(order.comparator()).toList();
        ObjectNode body = Json.object();
        ArrayNode out = body.putArray(field);
        kept.stream().limit(Math.max(0, limit)).forEach(out::add);
        if (limit > 0 && kept.size() > limit) {
            body.put(OrderQueries.NEXT, cursor(order, order.position(kept.get(limit - 1))));
        } else if (frontier != null) {
            body.put(OrderQueries.NEXT, cursor(order, frontier));
        }
        return body;
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
}
