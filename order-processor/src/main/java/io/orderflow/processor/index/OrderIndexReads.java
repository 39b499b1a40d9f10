package io.orderflow.processor.index;

import io.orderflow.processor.store.IndexScan;
import io.orderflow.processor.store.IndexedStore;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderIndexRow;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.query.OrderQueries;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The list, search and counts of the order index, read from the stores of this instance's partitions. A page reads
 * its rows in the order it answers them, from the index whose key order is that order, and stops after one page:
 *
 * <ul>
 *   <li>no {@code q}: the scope of the type and status, by creation or by change, bounded by {@code since}/{@code until}
 *       when sorted by creation;</li>
 *   <li>a {@code q} with a word of {@value OrderIndex#SHORTEST_PREFIX} or more characters: the rows with a word starting
 *       with its longest word, newest created first;</li>
 *   <li>where the index order is not the page's (a search or a creation range sorted by change), the matching rows are
 *       read whole when there are at most {@value #SORTED_AT_MOST}, keeping only the page's best; otherwise the scope
 *       by change is read and filtered.</li>
 * </ul>
 *
 * A read that filters (a short {@code q}, say) examines at most {@value #SCAN_BUDGET} rows; when it stops there, the
 * page comes back with the rows found so far and a {@code next} cursor where it stopped, so the next page carries on.
 * Nothing here holds more than a page of rows.
 */
public final class OrderIndexReads {

    /** Rows a filtering read examines at most before it answers with what it found and a cursor. */
    public static final int SCAN_BUDGET = 5_000;
    /** The most matching rows read whole when the index order is not the page's. */
    public static final int SORTED_AT_MOST = 2_000;
    /** How far the entries of each word of a search are counted to choose the word with the fewest. */
    static final int FEWEST_COUNTED = 1_000;
    static final int MOST_COUNTED = 100_000;
    /** Rows a count that has to read rows examines at most; past it the counts are marked partial. */
    public static final int COUNT_BUDGET = 200_000;

    /** One instance's page: its rows (at most the limit) and, when it has more, where it stopped. */
    public record Page(List<JsonNode> rows, Position next) {
    }

    /** A position in a list's order: the sort time and the order id. */
    public record Position(long time, String id) {
    }

    private OrderIndexReads() {
    }

    /** The page of {@code query} after {@code after} (null: from the start), from these partitions' stores. */
    public static Page page(List<ReadOnlyKeyValueStore<String, byte[]>> stores, OrderQueries.ListQuery query,
                            Position after) {
        return page(stores, query, after, SCAN_BUDGET);
    }

    /** {@link #page(List, OrderQueries.ListQuery, Position)} examining at most {@code budget} rows. */
    public static Page page(List<ReadOnlyKeyValueStore<String, byte[]>> stores, OrderQueries.ListQuery query,
                            Position after, int budget) {
        int limit = query.limit();
        if (limit == 0) {
            return new Page(List.of(), null);
        }
        String scope = OrderIndex.scope(query.type(), query.status());
        String word = searchWord(stores, query.q());
        boolean byUpdate = query.byUpdate();
        if (word != null && !byUpdate) {
            return inOrder(stores, OrderIndex.byWord(word), false, query, after, budget);
        }
        if (!byUpdate) {
            return inOrder(stores, OrderIndex.byCreated(scope), false, query, after, budget);
        }
        if (word != null || query.since() != null || query.until() != null) {
            String prefix = word != null ? OrderIndex.byWord(word) : OrderIndex.byCreated(scope);
            try (IndexScan matching = createdRange(stores, prefix, query, null)) {
                if (matching.count(SORTED_AT_MOST + 1) <= SORTED_AT_MOST) {
                    return best(stores, prefix, query, after);
                }
            }
        }
        return inOrder(stores, OrderIndex.byUpdated(scope), true, query, after, budget);
    }

    /**
     * Reads the index {@code prefix} in its order from {@code after} on, keeping the rows that pass the query, until a
     * page is full or {@code budget} rows were examined.
     */
    private static Page inOrder(List<ReadOnlyKeyValueStore<String, byte[]>> stores, String prefix, boolean byUpdate,
                                OrderQueries.ListQuery query, Position after, int budget) {
        int limit = query.limit();
        List<JsonNode> rows = new ArrayList<>();
        String from = after == null ? null : prefix + OrderIndex.newestFirst(after.time()) + "|" + after.id() + "\0";
        try (IndexScan scan = byUpdate ? IndexScan.prefixed(stores, prefix, from, null)
                : createdRange(stores, prefix, query, from)) {
            int examined = 0;
            Position last = null;
            while (scan.hasNext()) {
                if (examined == budget) {
                    return new Page(rows, last);
                }
                IndexScan.Entry entry = scan.next();
                examined++;
                String suffix = entry.key().substring(prefix.length());
                last = position(suffix);
                String rowKey = byUpdate ? new String(entry.value(), StandardCharsets.UTF_8) : suffix;
                Stored row = Stored.of(entry.store().get(rowKey), filters(query));
                if (row != null && row.passes(query)) {
                    if (rows.size() == limit) {
                        return new Page(rows, position(rows.getLast(), byUpdate));
                    }
                    rows.add(row.shown());
                }
            }
            return new Page(rows, null);
        }
    }

    /**
     * The page's rows from every row of the index {@code prefix} (created order, within the query's creation range)
     * that passes the query, sorted most recently changed first: only the best {@code limit + 1} are held.
     */
    private static Page best(List<ReadOnlyKeyValueStore<String, byte[]>> stores, String prefix,
                             OrderQueries.ListQuery query, Position after) {
        Comparator<Stored> changeOrder = Comparator.comparingLong((Stored row) -> row.row().updatedAt()).reversed()
                .thenComparing(row -> row.row().id());
        int keep = query.limit() + 1;
        PriorityQueue<Stored> kept = new PriorityQueue<>(changeOrder.reversed());
        try (IndexScan scan = createdRange(stores, prefix, query, null)) {
            while (scan.hasNext()) {
                IndexScan.Entry entry = scan.next();
                Stored row = Stored.of(entry.store().get(entry.key().substring(prefix.length())), true);
                if (row == null || !row.passes(query) || after != null && !isAfter(row.row(), after)) {
                    continue;
                }
                kept.add(row);
                if (kept.size() > keep) {
                    kept.poll();
                }
            }
        }
        List<Stored> sorted = new ArrayList<>(kept);
        sorted.sort(changeOrder);
        List<JsonNode> rows = new ArrayList<>();
        sorted.stream().limit(query.limit()).forEach(row -> rows.add(row.shown()));
        Position next = sorted.size() > query.limit() ? position(rows.getLast(), true) : null;
        return new Page(rows, next);
    }

    private static boolean isAfter(OrderIndexRow row, Position after) {
        int byTime = -Long.compare(row.updatedAt(), after.time());
        return byTime > 0 || byTime == 0 && row.id().compareTo(after.id()) > 0;
    }

    /**
     * Orders by status, with the query's type, {@code q} and creation range ({@code status} ignored), every status
     * present; {@code partial} when a count that reads rows stopped at {@value #COUNT_BUDGET}.
     */
    public static ObjectNode counts(List<ReadOnlyKeyValueStore<String, byte[]>> stores, OrderQueries.ListQuery query) {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (OrderStatus status : OrderStatus.values()) {
            counts.put(status.wire(), 0L);
        }
        boolean searched = !OrderIndex.words(query.q() == null ? "" : query.q()).isEmpty();
        boolean ranged = query.since() != null || query.until() != null;
        boolean partial = false;
        if (!searched && !ranged) {
            counters(stores, query.type()).forEach((status, n) -> counts.computeIfPresent(status, (s, sum) -> sum + n));
        } else if (!searched) {
            for (OrderStatus status : OrderStatus.values()) {
                try (IndexScan scan = createdRange(stores,
                        OrderIndex.byCreated(OrderIndex.scope(query.type(), status.wire())), query, null)) {
                    counts.put(status.wire(), (long) scan.count(Integer.MAX_VALUE));
                }
            }
        } else {
            String word = searchWord(stores, query.q());
            String prefix = word != null ? OrderIndex.byWord(word)
                    : OrderIndex.byCreated(OrderIndex.scope(query.type(), null));
            OrderQueries.ListQuery anyStatus = new OrderQueries.ListQuery(query.type(), null, query.q(),
                    query.since(), query.until(), null, null, 0);
            try (IndexScan scan = createdRange(stores, prefix, query, null)) {
                int examined = 0;
                while (scan.hasNext() && !(partial = examined == COUNT_BUDGET)) {
                    IndexScan.Entry entry = scan.next();
                    examined++;
                    OrderIndexRow row = OrderIndex.read(entry.store().get(entry.key().substring(prefix.length())));
                    if (row != null && passes(row, anyStatus)) {
                        counts.merge(row.status().wire(), 1L, Long::sum);
                    }
                }
            }
        }
        ObjectNode body = Json.object();
        ObjectNode byStatus = body.putObject("counts");
        counts.forEach(byStatus::put);
        body.put("total", counts.values().stream().mapToLong(Long::longValue).sum());
        if (partial) {
            body.put("partial", true);
        }
        return body;
    }

    /**
     * The counters the index keeps of orders of {@code type} (null: every type) by status, summed over the stores,
     * keyed by the status's wire name. One range read per partition: an iterator sees its store at one instant, so a
     * change that moves an order from one status to another is seen whole or not at all.
     */
    public static Map<String, Long> counters(List<ReadOnlyKeyValueStore<String, byte[]>> stores, String type) {
        String prefix = OrderIndex.counter(type, "");
        Map<String, Long> counts = new LinkedHashMap<>();
        for (ReadOnlyKeyValueStore<String, byte[]> store : stores) {
            try (var counters = store.range(prefix, IndexScan.end(prefix))) {
                counters.forEachRemaining(counter -> counts.merge(counter.key.substring(prefix.length()),
                        IndexedStore.counter(counter.value), Long::sum));
            }
        }
        return counts;
    }

    /**
     * The word of {@code q} whose index entries a search reads: of its words of {@value OrderIndex#SHORTEST_PREFIX}
     * characters or more (each cut to {@value OrderIndex#INDEXED_PREFIX}), the one with the fewest entries. Entries
     * are counted up to {@value #FEWEST_COUNTED}, and only the words tied at that bound are counted further, ten times
     * as far each round up to {@value #MOST_COUNTED}: at scale two words of a search both pass the first bound (in the
     * benchmark's {@code customer 417}, every order has the first word and one in 333 the second), and the word read
     * must be the rarer. Of words with as many entries, the longer. Null when {@code q} has no such word (such a
     * search filters a scan instead).
     */
    static String searchWord(List<ReadOnlyKeyValueStore<String, byte[]>> stores, String q) {
        if (q == null) {
            return null;
        }
        List<String> words = OrderIndex.words(q).stream().filter(w -> w.length() >= OrderIndex.SHORTEST_PREFIX)
                .map(w -> w.substring(0, Math.min(w.length(), OrderIndex.INDEXED_PREFIX))).distinct().toList();
        List<String> candidates = words.stream().filter(word -> words.stream().noneMatch(other ->
                implies(other, word))).toList();
        if (candidates.size() == 1) {
            return candidates.getFirst();
        }
        for (int bound = FEWEST_COUNTED; !candidates.isEmpty(); bound *= 10) {
            Map<String, Integer> entries = new LinkedHashMap<>();
            for (String word : candidates) {
                try (IndexScan scan = IndexScan.prefixed(stores, OrderIndex.byWord(word), null, null)) {
                    entries.put(word, scan.count(bound));
                }
            }
            int fewest = Collections.min(entries.values());
            List<String> tied = entries.entrySet().stream().filter(e -> e.getValue() == fewest)
                    .map(Map.Entry::getKey).toList();
            if (tied.size() == 1 || fewest < bound || bound >= MOST_COUNTED) {
                return tied.stream().max(Comparator.comparingInt(String::length)).orElseThrow();
            }
            candidates = tied;
        }
        return null;
    }

    /**
     * Whether every row with a word starting with {@code word} also has one starting with {@code part}, because a part
     * of {@code word} between {@code _} and {@code -} starts with it ({@code sku-42} and {@code sku}): the rows a word
     * is split into parts for ({@link OrderIndex#words(String)}) have those parts as words too. Such a part never has
     * fewer entries than the word, and is the shorter: it is never the word a search reads, and need not be counted.
     */
    private static boolean implies(String word, String part) {
        if (word.equals(part) || word.indexOf('_') < 0 && word.indexOf('-') < 0) {
            return false;
        }
        for (String piece : word.split("[_-]")) {
            if (piece.startsWith(part)) {
                return true;
            }
        }
        return false;
    }

    /** The keys of an index in creation order, within the query's creation range, from {@code from} on. */
    private static IndexScan createdRange(List<ReadOnlyKeyValueStore<String, byte[]>> stores, String prefix,
                                          OrderQueries.ListQuery query, String from) {
        String first = query.until() == null ? prefix : prefix + OrderIndex.newestFirst(query.until());
        if (from != null && from.compareTo(first) > 0) {
            first = from;
        }
        String last = query.since() == null ? IndexScan.end(prefix)
                : IndexScan.end(prefix + OrderIndex.newestFirst(query.since()) + "|");
        return new IndexScan(stores, first, last);
    }

    private static boolean passes(OrderIndexRow row, OrderQueries.ListQuery query) {
        return OrderIndex.matches(row, query.type(), query.status(), query.q(), query.since(), query.until());
    }

    /** Whether the query filters rows at all: without a filter every row passes, and none is decoded to check it. */
    private static boolean filters(OrderQueries.ListQuery query) {
        return query.type() != null && !query.type().isBlank() || query.status() != null && !query.status().isBlank()
                || query.q() != null && !OrderIndex.words(query.q()).isEmpty() || query.since() != null
                || query.until() != null;
    }

    /**
     * A stored row read for a page: its tree as the list shows it, and the row itself when it is to be filtered or
     * sorted (null otherwise). A row stored in the form this version writes is read as a tree straight from its
     * bytes ({@link OrderIndex#tree}); any other is decoded and shown from the row, as the same JSON.
     */
    private record Stored(JsonNode shown, OrderIndexRow row) {

        static Stored of(byte[] stored, boolean withRow) {
            if (stored == null) {
                return null;
            }
            ObjectNode tree = OrderIndex.tree(stored);
            if (tree == null) {
                OrderIndexRow row = OrderIndex.read(stored);
                return new Stored(OrderIndexReads.shown(row), row);
            }
            OrderIndexRow row = withRow ? OrderIndex.row(tree) : null;
            tree.remove(OrderIndexRow.SEARCH);
            return new Stored(tree, row);
        }

        boolean passes(OrderQueries.ListQuery query) {
            return row == null || OrderIndexReads.passes(row, query);
        }
    }

    /** The position of an index key's suffix {@code <newest-first time>|<id>}. */
    private static Position position(String suffix) {
        int bar = suffix.indexOf('|');
        return new Position(OrderIndex.time(suffix.substring(0, bar)), suffix.substring(bar + 1));
    }

    private static Position position(JsonNode row, boolean byUpdate) {
        return new Position(row.path(byUpdate ? "updatedAt" : "createdAt").asLong(), row.path("id").asString());
    }

    /** A row as the list shows it: without the search text. */
    private static JsonNode shown(OrderIndexRow row) {
        ObjectNode shown = (ObjectNode) Json.tree(row);
        shown.remove(OrderIndexRow.SEARCH);
        return shown;
    }
}
