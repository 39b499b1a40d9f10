package io.orderflow.processor.approvals;

import io.orderflow.processor.store.IndexScan;
import io.orderflow.processor.store.IndexedStore;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.json.JsonSerde;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import tools.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The approvals inbox's index, kept beside the approval rows (an {@link IndexedStore}): soonest deadline first,
 * per status and per assignee, so a page of the inbox reads only its rows.
 *
 * <ul>
 *   <li>The row, keyed {@code <order id>|<node id>} ({@link ApprovalRow#key}).</li>
 *   <li>{@code ~d|<status or all>|<deadline>|<row key>}, valued with the row key.</li>
 *   <li>{@code ~a|<assignee, lower case>|<status or all>|<deadline>|<row key>}, valued with the row key.</li>
 * </ul>
 * A row without a deadline sorts last.
 */
public final class ApprovalIndex {

    public static final String ALL = "all";
    private static final JsonSerde<ApprovalRow> ROWS = JsonSerde.of(ApprovalRow.class);
    private static final Serializer<ApprovalRow> ROW_WRITER = ROWS.serializer();
    private static final Deserializer<ApprovalRow> ROW_READER = ROWS.deserializer();

    public static final IndexedStore.Indexer INDEXER = (key, value) -> derived(key, read(value));

    /** A page of the inbox: its rows and, when more follow, the cursor position of its last row. */
    public record Page(List<JsonNode> rows, Position next) {
    }

    /** A position in the inbox's order: the deadline ({@link Long#MAX_VALUE} for none) and the row key. */
    public record Position(long deadline, String key) {
    }

    private ApprovalIndex() {
    }

    public static byte[] write(ApprovalRow row) {
        return ROW_WRITER.serialize(null, row);
    }

    public static ApprovalRow read(byte[] stored) {
        return stored == null ? null : ROW_READER.deserialize(null, stored);
    }

    static IndexedStore.Derived derived(String key, ApprovalRow row) {
        String at = deadline(row.deadline()) + "|" + key;
        byte[] rowKey = key.getBytes(StandardCharsets.UTF_8);
        Map<String, byte[]> entries = new HashMap<>();
        for (String status : List.of(ALL, row.status())) {
            entries.put(byDeadline(status, null) + at, rowKey);
            if (row.assignee() != null && !row.assignee().isBlank()) {
                entries.put(byDeadline(status, row.assignee()) + at, rowKey);
            }
        }
        return new IndexedStore.Derived(entries, Set.of());
    }

    /** The prefix of the index of rows with a status ({@code all} for any) for an assignee (null or blank: anyone). */
    static String byDeadline(String status, String assignee) {
        return assignee == null || assignee.isBlank() ? "~d|" + status + "|"
                : "~a|" + assignee.trim().toLowerCase(Locale.ROOT) + "|" + status + "|";
    }

    private static String deadline(Long deadline) {
        return String.format("%019d", deadline == null ? Long.MAX_VALUE : deadline);
    }

    /**
     * The page of at most {@code limit} rows with the status ({@code all}, null or blank for any) and assignee (null
     * or blank for anyone), soonest deadline first, after {@code after} (null: from the start).
     */
    public static Page page(List<ReadOnlyKeyValueStore<String, byte[]>> stores, String status, String assignee,
                            Position after, int limit) {
        String wanted = status == null || status.isBlank() ? ALL : status;
        String prefix = byDeadline(wanted, assignee);
        String from = after == null ? null : prefix + deadline(after.deadline()) + "|" + after.key() + "\0";
        List<JsonNode> rows = new ArrayList<>();
        try (IndexScan scan = IndexScan.prefixed(stores, prefix, from, null)) {
            while (scan.hasNext()) {
                IndexScan.Entry entry = scan.next();
                ApprovalRow row = read(entry.store().get(new String(entry.value(), StandardCharsets.UTF_8)));
                if (row == null) {
                    continue;
                }
                if (rows.size() == limit) {
                    JsonNode last = rows.getLast();
                    return new Page(rows, new Position(last.hasNonNull("deadline") ? last.get("deadline").asLong()
                            : Long.MAX_VALUE, last.get("orderId").asString() + "|" + last.get("nodeId").asString()));
                }
                rows.add(Json.tree(row));
            }
        }
        return new Page(rows, null);
    }
}
