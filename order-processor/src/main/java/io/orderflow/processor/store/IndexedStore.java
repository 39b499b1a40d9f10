package io.orderflow.processor.store;

import io.orderflow.kafka.store.GuardedStores;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.CommitCallback;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.Stores;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A persistent key-value store that keeps secondary index entries and counters beside its rows, in the same RocksDB
 * database, below the changelog: only the rows are logged, and the index entries are worked out again from each row
 * as it is written, deleted or restored from the changelog. So an index costs no Kafka record and can never
 * disagree with the rows it was derived from, after a restore just as in normal processing.
 *
 * <p>What a row adds is the {@link Indexer}'s to say: index keys (with small values) and counters it counts in. On
 * each write the entries of the row before and after are compared, and only the difference is written. Index keys
 * and counter keys must never look like row keys: each indexer gives its derived keys a prefix rows cannot have.
 */
public final class IndexedStore implements KeyValueStore<Bytes, byte[]> {

    /**
     * What one row adds to the store beside itself: the index entries and counters of the row {@code key} with
     * {@code value} ({@code value} is never null). Every derived key starts with {@value #DERIVED}, which no row key
     * may start with ({@link #isRow}).
     */
    @FunctionalInterface
    public interface Indexer {

        Derived derive(String key, byte[] value);
    }

    /** The first character of every index entry's and counter's key: it sorts after every row key. */
    public static final String DERIVED = "~";

    /** Whether a key is a row's (rather than an index entry or a counter). */
    public static boolean isRow(String key) {
        return !key.startsWith(DERIVED);
    }

    /**
     * A row's index entries (key to value, the value often empty) and the counters it adds one to.
     */
    public record Derived(Map<String, byte[]> entries, Set<String> counters) {

        public static final Derived NONE = new Derived(Map.of(), Set.of());
    }

    private static final byte[] EMPTY = {};
    /** Present once every row the store holds has its index entries (see {@link #indexEveryRow}). */
    private static final Bytes INDEXED = Bytes.wrap("~~indexed".getBytes(StandardCharsets.UTF_8));

    private final KeyValueStore<Bytes, byte[]> rows;
    private final Indexer indexer;

    private IndexedStore(KeyValueStore<Bytes, byte[]> rows, Indexer indexer) {
        this.rows = rows;
        this.indexer = indexer;
    }

    /**
     * A RocksDB store named {@code name} with the indexer's entries kept beside its rows, guarded as every store of the
     * services is ({@link GuardedStores}).
     */
    public static KeyValueBytesStoreSupplier persistent(String name, Indexer indexer) {
        return GuardedStores.guarded(GuardedStores.wrapping(Stores.persistentKeyValueStore(name),
                rows -> new IndexedStore(rows, indexer)));
    }

    /** The counter's value as stored: 8 bytes, big-endian; 0 when absent. */
    public static long counter(byte[] stored) {
        return stored == null || stored.length != Long.BYTES ? 0 : ByteBuffer.wrap(stored).getLong();
    }

    @Override
    public void put(Bytes key, byte[] value) {
        String name = new String(key.get(), StandardCharsets.UTF_8);
        if (!isRow(name)) {
            throw new IllegalArgumentException("Not a row key of store " + name() + ": " + name);
        }
        Writes writes = new Writes();
        writes.row(name, key, value);
        writes.write();
    }

    @Override
    public byte[] putIfAbsent(Bytes key, byte[] value) {
        byte[] present = get(key);
        if (present == null) {
            put(key, value);
        }
        return present;
    }

    @Override
    public void putAll(List<KeyValue<Bytes, byte[]>> entries) {
        entries.forEach(entry -> put(entry.key, entry.value));
    }

    @Override
    public byte[] delete(Bytes key) {
        byte[] before = rows.get(key);
        if (before != null) {
            put(key, null);
        }
        return before;
    }

    /**
     * The writes of one put, or of one batch of restored records: each row with the difference between its entries
     * before and after, read through what the batch has written so far, and written to RocksDB in one batch.
     */
    private final class Writes {

        /** Rows written by this batch: key to value, null for deleted. */
        private final Map<Bytes, byte[]> rowValues = new HashMap<>();
        /** Index entries and counters: key to value, null for deleted. */
        private final Map<Bytes, byte[]> derived = new LinkedHashMap<>();

        void row(String name, Bytes key, byte[] after) {
            byte[] before = rowValues.containsKey(key) ? rowValues.get(key) : rows.get(key);
            rowValues.put(key, after);
            entries(name, before, after);
        }

        /** The entries of a row the store holds already, as if it were new. */
        void added(String name, byte[] value) {
            entries(name, null, value);
        }

        private void entries(String name, byte[] before, byte[] after) {
            Derived old = before == null ? Derived.NONE : indexer.derive(name, before);
            Derived now = after == null ? Derived.NONE : indexer.derive(name, after);
            old.entries().forEach((entry, value) -> {
                if (!now.entries().containsKey(entry)) {
                    derived.put(bytes(entry), null);
                }
            });
            now.entries().forEach((entry, value) -> {
                byte[] previous = old.entries().get(entry);
                if (!old.entries().containsKey(entry) || !Arrays.equals(previous, value)) {
                    derived.put(bytes(entry), value == null ? EMPTY : value);
                }
            });
            old.counters().forEach(counter -> {
                if (!now.counters().contains(counter)) {
                    count(counter, -1);
                }
            });
            now.counters().forEach(counter -> {
                if (!old.counters().contains(counter)) {
                    count(counter, 1);
                }
            });
        }

        private void count(String counter, long delta) {
            Bytes key = bytes(counter);
            long value = counter(derived.containsKey(key) ? derived.get(key) : rows.get(key)) + delta;
            derived.put(key, value <= 0 ? null : ByteBuffer.allocate(Long.BYTES).putLong(value).array());
        }

        /** Writes the rows and their entries in one batch. */
        void write() {
            List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>(rowValues.size() + derived.size());
            rowValues.forEach((key, value) -> batch.add(KeyValue.pair(key, value)));
            derived.forEach((key, value) -> batch.add(KeyValue.pair(key, value)));
            rows.putAll(batch);
        }

        /**
         * The restored {@code records} followed by the entries, as records of the last one's changelog partition and
         * offset (which moves the store's position no further than the batch does).
         */
        Collection<ConsumerRecord<byte[], byte[]>> withEntries(Collection<ConsumerRecord<byte[], byte[]>> records) {
            if (derived.isEmpty() || records.isEmpty()) {
                return records;
            }
            List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>(records.size() + derived.size());
            all.addAll(records);
            ConsumerRecord<byte[], byte[]> last = all.get(all.size() - 1);
            derived.forEach((key, value) -> all.add(new ConsumerRecord<>(last.topic(), last.partition(),
                    last.offset(), key.get(), value)));
            return all;
        }

        /** Writes the entries only, for rows the store holds already. */
        void writeEntries() {
            List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>(derived.size());
            derived.forEach((key, value) -> batch.add(KeyValue.pair(key, value)));
            if (!batch.isEmpty()) {
                rows.putAll(batch);
            }
        }
    }

    private static Bytes bytes(String key) {
        return Bytes.wrap(key.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Opens the RocksDB store with a restore callback of its own: each restored row is written as a live write is,
     * with its index entries, so a store restored from its changelog has its indexes too.
     */
    @Override
    public void init(StateStoreContext context, StateStore root) {
        rows.init(new RestoringContext(context), root);
        if (rows.get(INDEXED) == null) {
            indexEveryRow();
        }
    }

    /**
     * Works out the entries of every row the store holds, once: for a store written before its rows had index
     * entries (or whose indexing was cut short), so that lists and counts see every row. A new or wiped store is
     * empty here and is marked at once; what a restore then writes is indexed as it comes.
     */
    private void indexEveryRow() {
        try (KeyValueIterator<Bytes, byte[]> derived = rows.range(bytes("~"), bytes("~" + Character.MAX_VALUE))) {
            List<KeyValue<Bytes, byte[]>> deletes = new ArrayList<>();
            derived.forEachRemaining(entry -> deletes.add(KeyValue.pair(entry.key, null)));
            if (!deletes.isEmpty()) {
                rows.putAll(deletes);
            }
        }
        Writes writes = new Writes();
        int pending = 0;
        try (KeyValueIterator<Bytes, byte[]> all = rows.all()) {
            while (all.hasNext()) {
                KeyValue<Bytes, byte[]> row = all.next();
                String name = new String(row.key.get(), StandardCharsets.UTF_8);
                if (isRow(name)) {
                    writes.added(name, row.value);
                    if (++pending == 10_000) {
                        writes.writeEntries();
                        writes = new Writes();
                        pending = 0;
                    }
                }
            }
        }
        writes.writeEntries();
        rows.put(INDEXED, new byte[] {1});
    }

    /**
     * Restores a batch of changelog records: the rows and their index entries, in the RocksDB store's one write batch
     * for the restore (its changelog position kept), so that no row is ever on disk without its entries, even when the
     * process dies in the middle of a restore and the store is kept (transactional state stores, when on). A row's
     * entries depend on its value alone, so they are worked out once per row of the batch, from the value the store
     * held before it to the batch's last value for it: a row written several times in a batch (a changelog the cleaner
     * has not compacted yet) is indexed once, and a row restored again after such a crash, already on disk with its
     * entries, changes none.
     */
    private void restore(Collection<ConsumerRecord<byte[], byte[]>> records,
                         RecordBatchingStateRestoreCallback restoreRows) {
        Map<Bytes, byte[]> lastValues = new LinkedHashMap<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            lastValues.put(Bytes.wrap(record.key()), record.value());
        }
        Writes writes = new Writes();
        lastValues.forEach((key, value) -> {
            String name = new String(key.get(), StandardCharsets.UTF_8);
            if (isRow(name)) {
                writes.row(name, key, value);
            }
        });
        restoreRows.restoreBatch(writes.withEntries(records));
    }

    /** The store's context, with its restore callback wrapped so that restored rows are indexed. */
    private final class RestoringContext implements StateStoreContext {

        private final StateStoreContext context;

        RestoringContext(StateStoreContext context) {
            this.context = context;
        }

        @Override
        public void register(StateStore store, StateRestoreCallback callback) {
            register(store, callback, () -> { });
        }

        @Override
        public void register(StateStore store, StateRestoreCallback callback, CommitCallback checkpoint) {
            if (!(callback instanceof RecordBatchingStateRestoreCallback batching)) {
                throw new IllegalStateException("The RocksDB store restores in batches; an indexed store needs that");
            }
            context.register(store, (RecordBatchingStateRestoreCallback) records -> restore(records, batching),
                    checkpoint);
        }

        @Override
        public String applicationId() {
            return context.applicationId();
        }

        @Override
        public TaskId taskId() {
            return context.taskId();
        }

        @Override
        public Optional<RecordMetadata> recordMetadata() {
            return context.recordMetadata();
        }

        @Override
        public Serde<?> keySerde() {
            return context.keySerde();
        }

        @Override
        public Serde<?> valueSerde() {
            return context.valueSerde();
        }

        @Override
        public File stateDir() {
            return context.stateDir();
        }

        @Override
        public StreamsMetrics metrics() {
            return context.metrics();
        }

        @Override
        public Map<String, Object> appConfigs() {
            return context.appConfigs();
        }

        @Override
        public Map<String, Object> appConfigsWithPrefix(String prefix) {
            return context.appConfigsWithPrefix(prefix);
        }
    }

    @Override
    public byte[] get(Bytes key) {
        return rows.get(key);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
        return rows.range(from, to);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
        return rows.reverseRange(from, to);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        return rows.all();
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
        return rows.reverseAll();
    }

    @Override
    public <PS extends org.apache.kafka.common.serialization.Serializer<P>, P> KeyValueIterator<Bytes, byte[]>
    prefixScan(P prefix, PS prefixKeySerializer) {
        return rows.prefixScan(prefix, prefixKeySerializer);
    }

    @Override
    public long approximateNumEntries() {
        return rows.approximateNumEntries();
    }

    @Override
    public String name() {
        return rows.name();
    }

    @Override
    public void flush() {
        rows.flush();
    }

    @Override
    public void commit(Map<TopicPartition, Long> changelogOffsets) {
        rows.commit(changelogOffsets);
    }

    @Override
    public Long committedOffset(TopicPartition partition) {
        return rows.committedOffset(partition);
    }

    @Override
    @SuppressWarnings("deprecation")
    public boolean managesOffsets() {
        return rows.managesOffsets();
    }

    @Override
    public void close() {
        rows.close();
    }

    @Override
    public boolean persistent() {
        return rows.persistent();
    }

    @Override
    public boolean isOpen() {
        return rows.isOpen();
    }

    @Override
    public <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        return rows.query(query, positionBound, config);
    }

    @Override
    public Position getPosition() {
        return rows.getPosition();
    }

    /**
     * Interactive queries read through this view, at {@code isolation}: the RocksDB store's own, which reads its rows
     * and the entries derived from them alike (they live in the same database) without touching the stream thread's
     * transaction buffer from another thread.
     */
    @Override
    public ReadOnlyKeyValueStore<Bytes, byte[]> readOnly(IsolationLevel isolation) {
        return rows.readOnly(isolation);
    }

    @Override
    public long approximateNumUncommittedBytes() {
        return rows.approximateNumUncommittedBytes();
    }
}
