package io.orderflow.kafka.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.internals.AStreamsThread;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;

/**
 * A guarded store reads its uncommitted bytes from the store it wraps only on Kafka Streams' own threads; any other
 * thread (a metrics reader) gets the figure they last read and never reaches the native write batch.
 */
class GuardedStoresTest {

    private final AtomicLong uncommitted = new AtomicLong(42);
    private final List<String> readers = new CopyOnWriteArrayList<>();

    @Test
    void onlyKafkaStreamsOwnThreadsReadTheWrappedStoresUncommittedBytes() throws Exception {
        KeyValueStore<Bytes, byte[]> guarded = GuardedStores.guarded(supplier()).get();

        // a stream thread reads the store's own figure
        assertThat(onStreamsThread(guarded)).isEqualTo(42);
        assertThat(readers).containsExactly("a-streams-thread");

        // another thread gets that figure without touching the store, even once the store's own has moved on
        uncommitted.set(7);
        assertThat(guarded.approximateNumUncommittedBytes()).isEqualTo(42);
        assertThat(readers).containsExactly("a-streams-thread");

        // until a stream thread reads it again
        assertThat(onStreamsThread(guarded)).isEqualTo(7);
        assertThat(guarded.approximateNumUncommittedBytes()).isEqualTo(7);
        assertThat(readers).containsExactly("a-streams-thread", "a-streams-thread");
    }

    private static long onStreamsThread(KeyValueStore<Bytes, byte[]> store) throws InterruptedException {
        AtomicLong read = new AtomicLong(-1);
        Thread thread = new AStreamsThread(() -> read.set(store.approximateNumUncommittedBytes()));
        thread.start();
        thread.join();
        return read.get();
    }

    /** Stores that answer their name and their uncommitted bytes (noting who asked), and nothing else. */
    @SuppressWarnings("unchecked")
    private KeyValueBytesStoreSupplier supplier() {
        KeyValueStore<Bytes, byte[]> store = (KeyValueStore<Bytes, byte[]>) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {KeyValueStore.class}, (proxy, method, args) ->
                        switch (method.getName()) {
                            case "name" -> "guarded-test";
                            case "approximateNumUncommittedBytes" -> {
                                readers.add(Thread.currentThread().getName());
                                yield uncommitted.get();
                            }
                            default -> throw new UnsupportedOperationException(method.getName());
                        });
        return new KeyValueBytesStoreSupplier() {
            @Override
            public String name() {
                return "guarded-test";
            }

            @Override
            public KeyValueStore<Bytes, byte[]> get() {
                return store;
            }

            @Override
            public String metricsScope() {
                return "rocksdb";
            }
        };
    }
}
