package io.orderflow.kafka.store;

import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

/**
 * Persistent key-value stores whose uncommitted-bytes figure is safe to read from any thread.
 *
 * <p>With transactional state stores, Kafka Streams 4.4.0 registers a gauge per store, {@code uncommitted-bytes}, that
 * reads the size of the store's native RocksDB write batch. The batch is freed and replaced at every commit (and freed
 * when the store closes) without a lock against that read, so a reader on another thread can touch freed memory:
 * Micrometer's Kafka binder reads every metric's value every 15 s ({@code StreamsMeters}), and a test JVM died of it
 * (SIGSEGV in {@code WriteBatch.getDataSize}, called from the {@code orderflow-order-processor-meters} thread, in a
 * clean-clone CI run on 2026-11-27). Each store here answers that figure itself only on Kafka Streams' own threads,
 * which commit and close it; any other thread gets the figure those threads last read.
 */
public final class GuardedStores {

    private GuardedStores() {
    }

    /** A RocksDB store named {@code name} ({@link Stores#persistentKeyValueStore}), guarded. */
    public static KeyValueBytesStoreSupplier persistent(String name) {
        return guarded(Stores.persistentKeyValueStore(name));
    }

    /** The stores {@code supplier} makes, guarded. */
    public static KeyValueBytesStoreSupplier guarded(KeyValueBytesStoreSupplier supplier) {
        return wrapping(supplier, Guarded::new);
    }

    /** A supplier of the stores {@code supplier} makes, each passed through {@code wrap}; same name and scope. */
    public static KeyValueBytesStoreSupplier wrapping(KeyValueBytesStoreSupplier supplier,
                                                      UnaryOperator<KeyValueStore<Bytes, byte[]>> wrap) {
        return new KeyValueBytesStoreSupplier() {
            @Override
            public String name() {
                return supplier.name();
            }

            @Override
            public KeyValueStore<Bytes, byte[]> get() {
                return wrap.apply(supplier.get());
            }

            @Override
            public String metricsScope() {
                return supplier.metricsScope();
            }
        };
    }

    /** Whether the calling thread is one of Kafka Streams' own (a stream thread, the state updater). */
    static boolean onStreamsThread() {
        return Thread.currentThread().getClass().getName().startsWith("org.apache.kafka.streams.processor.internals.");
    }

    private static final class Guarded extends WrappedStateStore<KeyValueStore<Bytes, byte[]>, Bytes, byte[]>
            implements KeyValueStore<Bytes, byte[]> {

        private volatile long uncommittedBytes;

        Guarded(KeyValueStore<Bytes, byte[]> wrapped) {
            super(wrapped);
        }

        @Override
        public long approximateNumUncommittedBytes() {
            if (onStreamsThread()) {
                uncommittedBytes = wrapped().approximateNumUncommittedBytes();
            }
            return uncommittedBytes;
        }

        @Override
        public void put(Bytes key, byte[] value) {
            wrapped().put(key, value);
        }

        @Override
        public byte[] putIfAbsent(Bytes key, byte[] value) {
            return wrapped().putIfAbsent(key, value);
        }

        @Override
        public void putAll(List<KeyValue<Bytes, byte[]>> entries) {
            wrapped().putAll(entries);
        }

        @Override
        public byte[] delete(Bytes key) {
            return wrapped().delete(key);
        }

        @Override
        public byte[] get(Bytes key) {
            return wrapped().get(key);
        }

        @Override
        public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
            return wrapped().range(from, to);
        }

        @Override
        public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
            return wrapped().reverseRange(from, to);
        }

        @Override
        public KeyValueIterator<Bytes, byte[]> all() {
            return wrapped().all();
        }

        @Override
        public KeyValueIterator<Bytes, byte[]> reverseAll() {
            return wrapped().reverseAll();
        }

        @Override
        public <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix,
                                                                                        PS prefixKeySerializer) {
            return wrapped().prefixScan(prefix, prefixKeySerializer);
        }

        @Override
        public long approximateNumEntries() {
            return wrapped().approximateNumEntries();
        }

        @Override
        public ReadOnlyKeyValueStore<Bytes, byte[]> readOnly(IsolationLevel isolation) {
            return wrapped().readOnly(isolation);
        }
    }
}
