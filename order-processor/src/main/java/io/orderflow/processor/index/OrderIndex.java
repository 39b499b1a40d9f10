package io.orderflow.processor.index;

import io.orderflow.processor.order.OrderState;
import io.orderflow.processor.order.Wait;
import io.orderflow.processor.store.IndexedStore;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.json.JsonSerde;
import io.orderflow.schemas.model.OrderIndexRow;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.OrderType;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The order index: one row per order, and beside it (an {@link IndexedStore}) the keys that let a list, a search or
 * a count read only what it answers.
 *
 * <ul>
 *   <li>The row, keyed {@code <newest-first created time>|<id>} (see {@link #key(long, String)}).</li>
 *   <li>{@code ~c|<scope>|<row key>}: the rows of a scope newest created first. A scope is {@code *} (every order),
 *       {@code s=<status>}, {@code t=<type>} or {@code t=<type>&s=<status>}.</li>
 *   <li>{@code ~u|<scope>|<newest-first updated time>|<id>}, valued with the row key: the same, most recently changed
 *       first.</li>
 *   <li>{@code ~w|<word>|<row key>}: the rows whose text has a word starting with {@code <word>} (see
 *       {@link #words}), newest created first: the search index of {@code q}.</li>
 *   <li>{@code ~n|<type or *>|<status>}: the number of rows with that status (and type), an 8-byte counter.</li>
 * </ul>
 */
public final class OrderIndex {

    /** The longest word prefix kept in the search index; longer search words are looked up by this prefix. */
    public static final int INDEXED_PREFIX = 8;
    /** The shortest word prefix kept; a shorter search word is only found by a scan. */
    public static final int SHORTEST_PREFIX = 3;
    /** Words longer than this are cut before they are indexed or compared. */
    static final int LONGEST_WORD = 64;

    public static final String ALL = "*";
    private static final JsonSerde<OrderIndexRow> ROWS = JsonSerde.of(OrderIndexRow.class);
    private static final Serializer<OrderIndexRow> ROW_WRITER = ROWS.serializer();
    private static final Deserializer<OrderIndexRow> ROW_READER = ROWS.deserializer();
    /** The fields of a stored row in the order its writer writes them, {@code search} last (written when present). */
    private static final List<String> ROW_FIELDS = fieldsOf(new OrderIndexRow("", OrderType.values()[0],
            OrderStatus.values()[0], "", "", 0, "", 0, "", "", java.math.BigDecimal.ONE, "", 0, 0, ""));

    /** The store's indexer: the entries and counters of one row. */
    public static final IndexedStore.Indexer INDEXER = (key, value) -> derived(key, read(value));

    private OrderIndex() {
    }

    private static List<String> fieldsOf(OrderIndexRow row) {
        List<String> fields = new ArrayList<>();
        Json.MAPPER.readTree(write(row)).propertyNames().forEach(fields::add);
        if (!fields.getLast().equals(OrderIndexRow.SEARCH)) {
            throw new IllegalStateException("A row's search text is expected last: " + fields);
        }
        return List.copyOf(fields);
    }

    /** Zero-padded {@code Long.MAX_VALUE - createdAt}, then the id: string order is newest first. */
    public static String key(long createdAt, String orderId) {
        return newestFirst(createdAt) + "|" + orderId;
    }

    public static String key(OrderState state) {
        return key(state.createdAt(), state.orderId());
    }

    /** A time as 19 digits that sort the latest first. */
    public static String newestFirst(long millis) {
        return String.format("%019d", Long.MAX_VALUE - millis);
    }

    /** The time {@link #newestFirst} wrote. */
    public static long time(String newestFirst) {
        return Long.MAX_VALUE - Long.parseLong(newestFirst);
    }

    /** Every derived key starts with {@code ~}, which sorts after every row key and never starts an order id. */
    public static boolean isRow(String key) {
        return IndexedStore.isRow(key);
    }

    public static byte[] write(OrderIndexRow row) {
        return ROW_WRITER.serialize(null, row);
    }

    public static OrderIndexRow read(byte[] stored) {
        return stored == null ? null : ROW_READER.deserialize(null, stored);
    }

    /**
     * A stored row as a tree, read straight from its bytes: the same tree as the row decoded ({@link #read}) and
     * turned into one again, for a row stored in the form {@link #write} gives it (its fields, in their order, each
     * of its kind). Null for a row stored in any other form, which has to be decoded to be shown as this version
     * shows it. Reading a tree costs a fraction of decoding the row and writing it again, on every row of a page.
     */
    public static ObjectNode tree(byte[] stored) {
        if (!(Json.MAPPER.readTree(stored) instanceof ObjectNode tree) || tree.size() < ROW_FIELDS.size() - 1
                || tree.size() > ROW_FIELDS.size()) {
            return null;
        }
        int at = 0;
        for (Map.Entry<String, JsonNode> field : tree.properties()) {
            if (!field.getKey().equals(ROW_FIELDS.get(at)) || !isCanonical(field.getKey(), field.getValue())) {
                return null;
            }
            at++;
        }
        return tree;
    }

    /** The row of a tree {@link #tree(byte[])} gave. */
    public static OrderIndexRow row(ObjectNode tree) {
        JsonNode total = tree.get("total");
        return new OrderIndexRow(text(tree, "id"), OrderType.fromWire(text(tree, "type")),
                OrderStatus.fromWire(text(tree, "status")), text(tree, "title"), text(tree, "flowId"),
                tree.get("flowVersion").intValue(), text(tree, "instanceId"), tree.get("generation").intValue(),
                text(tree, "customerId"), text(tree, "currency"), total.isNull() ? null : total.decimalValue(),
                text(tree, "waitingOn"), tree.get("createdAt").longValue(), tree.get("updatedAt").longValue(),
                text(tree, OrderIndexRow.SEARCH));
    }

    /** Whether a field's value is one the row's decoder reads and its writer writes back as it is. */
    private static boolean isCanonical(String field, JsonNode value) {
        return switch (field) {
            case "type" -> value.isNull() || value.isString() && OrderType.fromWire(value.asString()) != null
                    && OrderType.fromWire(value.asString()).wire().equals(value.asString());
            case "status" -> value.isString() && OrderStatus.fromWire(value.asString()) != null
                    && OrderStatus.fromWire(value.asString()).wire().equals(value.asString());
            case "flowVersion", "generation" -> value.isInt();
            case "createdAt", "updatedAt" -> value.isIntegralNumber() && value.canConvertToLong();
            case "total" -> value.isNull() || value.isIntegralNumber() || value.isBigDecimal();
            case OrderIndexRow.SEARCH -> value.isString();
            default -> value.isNull() || value.isString();
        };
    }

    /** The scope of rows with a type and a status, either absent (null or blank). */
    public static String scope(String type, String status) {
        boolean typed = type != null && !type.isBlank();
        boolean withStatus = status != null && !status.isBlank();
        if (typed && withStatus) {
            return "t=" + type + "&s=" + status;
        }
        return typed ? "t=" + type : withStatus ? "s=" + status : ALL;
    }

    /** The prefix of the keys of a scope's rows, newest created first. */
    public static String byCreated(String scope) {
        return "~c|" + scope + "|";
    }

    /** The prefix of the keys of a scope's rows, most recently changed first. */
    public static String byUpdated(String scope) {
        return "~u|" + scope + "|";
    }

    /** The prefix of the keys of the rows whose text has a word that starts with {@code word}. */
    public static String byWord(String word) {
        return "~w|" + word + "|";
    }

    /** The counter of rows with a status, of one type or of any ({@code null}). */
    public static String counter(String type, String status) {
        return "~n|" + (type == null || type.isBlank() ? ALL : type) + "|" + status;
    }

    static IndexedStore.Derived derived(String rowKey, OrderIndexRow row) {
        String type = row.type() == null ? "" : row.type().wire();
        String status = row.status().wire();
        byte[] rowKeyBytes = rowKey.getBytes(StandardCharsets.UTF_8);
        String updated = newestFirst(row.updatedAt()) + "|" + row.id();
        Map<String, byte[]> entries = new HashMap<>();
        for (String scope : List.of(ALL, scope(null, status), scope(type, null), scope(type, status))) {
            entries.put(byCreated(scope) + rowKey, null);
            entries.put(byUpdated(scope) + updated, rowKeyBytes);
        }
        for (String word : indexedWords(row)) {
            entries.put(byWord(word) + rowKey, null);
        }
        return new IndexedStore.Derived(entries, Set.of(counter(null, status), counter(type, status)));
    }

    /** What the search index keeps of a row: each word's prefixes of {@value #SHORTEST_PREFIX} to {@value #INDEXED_PREFIX} characters, shorter words whole. */
    static Set<String> indexedWords(OrderIndexRow row) {
        Set<String> indexed = new LinkedHashSet<>();
        for (String word : words(row)) {
            if (word.length() < SHORTEST_PREFIX) {
                indexed.add(word);
                continue;
            }
            for (int length = SHORTEST_PREFIX; length <= Math.min(word.length(), INDEXED_PREFIX); length++) {
                indexed.add(word.substring(0, length));
            }
        }
        return indexed;
    }

    /** The words of a row that {@code q} is matched against: of its id, title, customer id and search text. */
    public static Set<String> words(OrderIndexRow row) {
        Set<String> words = new LinkedHashSet<>();
        addWords(words, row.id());
        addWords(words, row.title());
        addWords(words, row.customerId());
        addWords(words, row.search());
        return words;
    }

    /**
     * The words of a text, lower case: runs of letters, digits, {@code _} and {@code -}, each whole and split again at
     * {@code _} and {@code -} ({@code cus_acme-2} gives {@code cus_acme-2}, {@code cus}, {@code acme} and {@code 2}).
     */
    public static List<String> words(String text) {
        Set<String> words = new LinkedHashSet<>();
        addWords(words, text);
        return new ArrayList<>(words);
    }

    private static void addWords(Set<String> words, String text) {
        if (text == null) {
            return;
        }
        String lower = text.toLowerCase(Locale.ROOT);
        int start = -1;
        for (int i = 0; i <= lower.length(); i++) {
            char c = i < lower.length() ? lower.charAt(i) : ' ';
            boolean inWord = Character.isLetterOrDigit(c) || c == '_' || c == '-';
            if (inWord && start < 0) {
                start = i;
            } else if (!inWord && start >= 0) {
                addWord(words, lower.substring(start, i));
                start = -1;
            }
        }
    }

    private static void addWord(Set<String> words, String word) {
        String whole = word.length() > LONGEST_WORD ? word.substring(0, LONGEST_WORD) : word;
        words.add(whole);
        if (whole.indexOf('_') >= 0 || whole.indexOf('-') >= 0) {
            for (String part : whole.split("[_-]")) {
                if (!part.isEmpty()) {
                    words.add(part);
                }
            }
        }
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
     * and {@code q}.
     */
    public static boolean matches(OrderIndexRow row, String type, String status, String q, Long since, Long until) {
        return (since == null || row.createdAt() >= since) && (until == null || row.createdAt() <= until)
                && matches(row, type, status, q);
    }

    /**
     * The list filters: order type, status, and {@code q}: every word of {@code q} (see {@link #words(String)}) starts
     * a word of the row's id, title, customer id, SKUs, line names or customer name, case ignored.
     */
    public static boolean matches(OrderIndexRow row, String type, String status, String q) {
        if (type != null && !type.isBlank() && (row.type() == null || !row.type().wire().equals(type))) {
            return false;
        }
        if (status != null && !status.isBlank() && !row.status().wire().equals(status)) {
            return false;
        }
        List<String> wanted = q == null ? List.of() : words(q);
        if (wanted.isEmpty()) {
            return true;
        }
        Set<String> words = words(row);
        return wanted.stream().allMatch(prefix -> words.stream().anyMatch(word -> word.startsWith(prefix)));
    }

    private static String text(JsonNode node, String field) {
        return node != null && node.hasNonNull(field) ? node.get(field).asString() : null;
    }
}
