package io.orderflow.processor.index;

import io.orderflow.processor.store.IndexedStore;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderIndexRow;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.OrderType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The indexed store on RocksDB: rows written by a store without index entries (as before indexes were kept) get
 * them when the store is next opened as an indexed one, a delete takes a row's entries and counts away, and a store
 * restored from its changelog lists and counts what a store written live would.
 */
class IndexedStoreTest {

    @TempDir
    Path stateDir;

    @Test
    void rowsStoredWithoutEntriesAreIndexedWhenTheStoreOpensAndDeletesTakeTheirEntriesAway() {
        // given a plain RocksDB store holding three rows
        MockProcessorContext<Object, Object> context = context();
        KeyValueStore<String, byte[]> plain = Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore("index"),
                Serdes.String(), Serdes.ByteArray()).withLoggingDisabled().build();
        plain.init(context.getStateStoreContext(), plain);
        List<OrderIndexRow> rows = List.of(row("ord_a", OrderStatus.QUEUED, 1_000),
                row("ord_b", OrderStatus.CANCELLED, 2_000), row("ord_c", OrderStatus.QUEUED, 3_000));
        rows.forEach(row -> plain.put(OrderIndex.key(row.createdAt(), row.id()), OrderIndex.write(row)));
        plain.close();

        // when the same store is opened as an indexed one
        KeyValueStore<String, byte[]> indexed = Stores.keyValueStoreBuilder(
                IndexedStore.persistent("index", OrderIndex.INDEXER), Serdes.String(), Serdes.ByteArray())
                .withLoggingDisabled().build();
        indexed.init(context.getStateStoreContext(), indexed);
        try {
            // then every row is listed and counted
            assertThat(counter(indexed, OrderIndex.counter(null, "queued"))).isEqualTo(2);
            assertThat(counter(indexed, OrderIndex.counter("storefront_order", "cancelled"))).isEqualTo(1);
            assertThat(OrderIndexReads.page(List.of(indexed),
                    io.orderflow.schemas.query.OrderQueries.ListQuery.of(null, "queued", "acme"), null).rows())
                    .extracting(row -> row.get("id").asString()).containsExactly("ord_c", "ord_a");

            // and when a row is deleted, its entries and its count go with it
            indexed.delete(OrderIndex.key(1_000, "ord_a"));
            assertThat(counter(indexed, OrderIndex.counter(null, "queued"))).isEqualTo(1);
            try (var left = indexed.range("~", "~" + Character.MAX_VALUE)) {
                left.forEachRemaining(entry -> assertThat(entry.key).doesNotContain("ord_a"));
            }
        } finally {
            indexed.close();
        }

        // and opened again, it is not indexed twice
        KeyValueStore<String, byte[]> again = Stores.keyValueStoreBuilder(
                IndexedStore.persistent("index", OrderIndex.INDEXER), Serdes.String(), Serdes.ByteArray())
                .withLoggingDisabled().build();
        again.init(context.getStateStoreContext(), again);
        try {
            assertThat(counter(again, OrderIndex.counter(null, "queued"))).isEqualTo(1);
        } finally {
            again.close();
        }
    }

    @Test
    void aSearchReadsTheRarerOfTwoWordsThatBothHaveMoreEntriesThanTheFirstCount() {
        // given 2,600 orders of acme, 1,200 of them also of the customer cus_rare
        KeyValueStore<String, byte[]> indexed = Stores.keyValueStoreBuilder(
                IndexedStore.persistent("index", OrderIndex.INDEXER), Serdes.String(), Serdes.ByteArray())
                .withLoggingDisabled().build();
        indexed.init(context().getStateStoreContext(), indexed);
        try {
            for (int i = 0; i < 2_600; i++) {
                OrderIndexRow row = row("ord_" + i, OrderStatus.QUEUED, i, i < 1_200 ? "cus_rare" : "cus_other");
                indexed.put(OrderIndex.key(row.createdAt(), row.id()), OrderIndex.write(row));
            }
            // when a search names both words, then it reads the entries of the rarer
            assertThat(OrderIndexReads.searchWord(List.of(indexed), "acme rare")).isEqualTo("rare");
            assertThat(OrderIndexReads.page(List.of(indexed),
                    io.orderflow.schemas.query.OrderQueries.ListQuery.of(null, null, "acme rare"), null).rows())
                    .isNotEmpty().allSatisfy(row -> assertThat(row.get("customerId").asString()).isEqualTo("cus_rare"));
        } finally {
            indexed.close();
        }
    }

    @Test
    void aSearchForAWordWithPartsStillReadsARarerOtherWord() {
        // given 1,500 orders with the SKU sku-42 (and so the words sku and 42), 20 of them of the customer cus_rare
        KeyValueStore<String, byte[]> indexed = Stores.keyValueStoreBuilder(
                IndexedStore.persistent("index", OrderIndex.INDEXER), Serdes.String(), Serdes.ByteArray())
                .withLoggingDisabled().build();
        indexed.init(context().getStateStoreContext(), indexed);
        try {
            for (int i = 0; i < 1_500; i++) {
                OrderIndexRow row = withSearch(row("ord_" + i, OrderStatus.QUEUED, i, i < 20 ? "cus_rare" : "cus_x"),
                        "sku-42\nwidget");
                indexed.put(OrderIndex.key(row.createdAt(), row.id()), OrderIndex.write(row));
            }
            // when a search names the SKU alone, then it reads the SKU's entries, not those of its part sku
            assertThat(OrderIndexReads.searchWord(List.of(indexed), "SKU-42")).isEqualTo("sku-42");
            // and when it names the SKU and a rarer word, it reads the rarer word's
            assertThat(OrderIndexReads.searchWord(List.of(indexed), "SKU-42 rare")).isEqualTo("rare");
            assertThat(OrderIndexReads.page(List.of(indexed),
                    io.orderflow.schemas.query.OrderQueries.ListQuery.of(null, null, "SKU-42 rare"), null).rows())
                    .hasSize(20);
        } finally {
            indexed.close();
        }
    }

    @Test
    void aRowStoredInAnotherFormIsListedAsThisVersionShowsIt() {
        // given a row as this version writes it, and one stored without waitingOn and with a field no longer kept
        KeyValueStore<String, byte[]> indexed = Stores.keyValueStoreBuilder(
                IndexedStore.persistent("index", OrderIndex.INDEXER), Serdes.String(), Serdes.ByteArray())
                .withLoggingDisabled().build();
        indexed.init(context().getStateStoreContext(), indexed);
        try {
            OrderIndexRow current = withSearch(row("ord_new", OrderStatus.QUEUED, 2_000), "sku-1");
            indexed.put(OrderIndex.key(current.createdAt(), current.id()), OrderIndex.write(current));
            tools.jackson.databind.node.ObjectNode older = (tools.jackson.databind.node.ObjectNode)
                    Json.tree(row("ord_old", OrderStatus.QUEUED, 1_000));
            older.remove("waitingOn");
            older.put("legacy", "x");
            indexed.put(OrderIndex.key(1_000, "ord_old"), Json.MAPPER.writeValueAsBytes(older));

            // when the list is read, then each row is the JSON of the row decoded, without its search text
            List<String> listed = OrderIndexReads.page(List.of(indexed),
                    io.orderflow.schemas.query.OrderQueries.ListQuery.of(null, null, null), null).rows().stream()
                    .map(Json.MAPPER::writeValueAsString).toList();
            assertThat(listed).containsExactly(shown(current), shown(OrderIndex.read(
                    Json.MAPPER.writeValueAsBytes(older))));
            assertThat(listed.get(1)).contains("\"waitingOn\":null").doesNotContain("legacy");
            assertThat(listed.get(0)).doesNotContain("search");
        } finally {
            indexed.close();
        }
    }

    @Test
    void aStoreRestoredFromAChangelogThatWroteARowSeveralTimesListsAndCountsItsLastValueOnly() {
        // given a changelog that holds each order's every write (not compacted yet) and a delete
        List<OrderIndexRow> writes = List.of(row("ord_a", OrderStatus.QUEUED, 1_000),
                row("ord_b", OrderStatus.QUEUED, 2_000), row("ord_a", OrderStatus.RUNNING, 1_000),
                row("ord_c", OrderStatus.QUEUED, 3_000), row("ord_a", OrderStatus.COMPLETED, 1_000),
                row("ord_c", OrderStatus.CANCELLED, 3_000));
        List<ConsumerRecord<byte[], byte[]>> changelog = new ArrayList<>();
        writes.forEach(row -> changelog.add(record(changelog.size(), OrderIndex.key(row.createdAt(), row.id()),
                OrderIndex.write(row))));
        changelog.add(record(changelog.size(), OrderIndex.key(2_000, "ord_b"), null));

        // when a new store restores it in two batches, the second writing ord_a and ord_c again
        List<StateRestoreCallback> restores = new ArrayList<>();
        KeyValueStore<String, byte[]> restored = openedForRestore(restores);
        try {
            RecordBatchingStateRestoreCallback restore = (RecordBatchingStateRestoreCallback) restores.getFirst();
            restore.restoreBatch(changelog.subList(0, 3));
            restore.restoreBatch(changelog.subList(3, changelog.size()));

            // then each order is counted once, in its last status, and the deleted one is gone from lists and counts
            assertThat(counter(restored, OrderIndex.counter(null, "completed"))).isEqualTo(1);
            assertThat(counter(restored, OrderIndex.counter(null, "cancelled"))).isEqualTo(1);
            assertThat(counter(restored, OrderIndex.counter(null, "queued"))).isZero();
            assertThat(counter(restored, OrderIndex.counter(null, "running"))).isZero();
            assertThat(OrderIndexReads.page(List.of(restored),
                    io.orderflow.schemas.query.OrderQueries.ListQuery.of(null, null, "acme"), null).rows())
                    .extracting(row -> row.get("id").asString() + " " + row.get("status").asString())
                    .containsExactly("ord_c cancelled", "ord_a completed");
            try (var entries = restored.range("~", "~" + Character.MAX_VALUE)) {
                entries.forEachRemaining(entry -> assertThat(entry.key).doesNotContain("ord_b"));
            }
        } finally {
            restored.close();
        }
    }

    @Test
    void aBatchRestoredAgainAfterACrashInTheMiddleOfARestoreCountsNothingTwice() {
        // given a store that restored two batches with their entries, and died before the restore's position was kept
        List<ConsumerRecord<byte[], byte[]>> changelog = new ArrayList<>();
        List.of(row("ord_a", OrderStatus.QUEUED, 1_000), row("ord_b", OrderStatus.QUEUED, 2_000),
                row("ord_a", OrderStatus.COMPLETED, 1_000), row("ord_c", OrderStatus.RUNNING, 3_000))
                .forEach(row -> changelog.add(record(changelog.size(), OrderIndex.key(row.createdAt(), row.id()),
                        OrderIndex.write(row))));
        List<StateRestoreCallback> restores = new ArrayList<>();
        KeyValueStore<String, byte[]> restored = openedForRestore(restores);
        try {
            RecordBatchingStateRestoreCallback restore = (RecordBatchingStateRestoreCallback) restores.getFirst();
            restore.restoreBatch(changelog.subList(0, 2));
            restore.restoreBatch(changelog.subList(2, 4));

            // when the restore reads the second batch again (the store kept, not wiped)
            restore.restoreBatch(changelog.subList(2, 4));

            // then each order is counted once, in its last status
            assertThat(counter(restored, OrderIndex.counter(null, "completed"))).isEqualTo(1);
            assertThat(counter(restored, OrderIndex.counter(null, "queued"))).isEqualTo(1);
            assertThat(counter(restored, OrderIndex.counter(null, "running"))).isEqualTo(1);
            assertThat(OrderIndexReads.page(List.of(restored),
                    io.orderflow.schemas.query.OrderQueries.ListQuery.of(null, null, "acme"), null).rows())
                    .extracting(row -> row.get("id").asString() + " " + row.get("status").asString())
                    .containsExactly("ord_c running", "ord_b queued", "ord_a completed");
        } finally {
            restored.close();
        }
    }

    private static ConsumerRecord<byte[], byte[]> record(long offset, String key, byte[] value) {
        return new ConsumerRecord<>("indexed-store-test-index-changelog", 0, offset,
                key.getBytes(java.nio.charset.StandardCharsets.UTF_8), value);
    }

    /** A new indexed store, opened as a task opens it; the restore callbacks it registers go to {@code restores}. */
    private KeyValueStore<String, byte[]> openedForRestore(List<StateRestoreCallback> restores) {
        KeyValueStore<String, byte[]> store = Stores.keyValueStoreBuilder(
                IndexedStore.persistent("index", OrderIndex.INDEXER), Serdes.String(), Serdes.ByteArray())
                .withLoggingDisabled().build();
        store.init(capturingRestores(context().getStateStoreContext(), restores), store);
        return store;
    }

    /** The store's context, keeping the restore callbacks the store registers (as the changelog reader would). */
    private static StateStoreContext capturingRestores(StateStoreContext context, List<StateRestoreCallback> restores) {
        return (StateStoreContext) java.lang.reflect.Proxy.newProxyInstance(IndexedStoreTest.class.getClassLoader(),
                interfaces(context.getClass()), (proxy, method, args) -> {
                    if (method.getName().equals("register")) {
                        restores.add((StateRestoreCallback) args[1]);
                    }
                    try {
                        return method.invoke(context, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static Class<?>[] interfaces(Class<?> type) {
        java.util.Set<Class<?>> all = new java.util.LinkedHashSet<>();
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            List.of(c.getInterfaces()).forEach(all::add);
        }
        return all.toArray(Class<?>[]::new);
    }

    private static String shown(OrderIndexRow row) {
        tools.jackson.databind.node.ObjectNode shown = (tools.jackson.databind.node.ObjectNode) Json.tree(row);
        shown.remove(OrderIndexRow.SEARCH);
        return Json.MAPPER.writeValueAsString(shown);
    }

    private static OrderIndexRow withSearch(OrderIndexRow row, String search) {
        return new OrderIndexRow(row.id(), row.type(), row.status(), row.title(), row.flowId(), row.flowVersion(),
                row.instanceId(), row.generation(), row.customerId(), row.currency(), row.total(), row.waitingOn(),
                row.createdAt(), row.updatedAt(), search);
    }

    private MockProcessorContext<Object, Object> context() {
        Properties config = new Properties();
        config.put("application.id", "indexed-store-test");
        config.put("bootstrap.servers", "unused:9092");
        return new MockProcessorContext<>(config, new org.apache.kafka.streams.processor.TaskId(0, 0),
                stateDir.toFile());
    }

    private static long counter(KeyValueStore<String, byte[]> store, String counter) {
        return IndexedStore.counter(store.get(counter));
    }

    private static OrderIndexRow row(String id, OrderStatus status, long createdAt) {
        return row(id, status, createdAt, "acme");
    }

    private static OrderIndexRow row(String id, OrderStatus status, long createdAt, String customerId) {
        return new OrderIndexRow(id, OrderType.STOREFRONT_ORDER, status, "Storefront order · acme", "flow", 1,
                id + ".1", 1, customerId, "EUR", new BigDecimal("10.00"), "", createdAt, createdAt, null);
    }
}
