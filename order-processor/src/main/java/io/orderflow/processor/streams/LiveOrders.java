package io.orderflow.processor.streams;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The stored JSON of the orders this instance's active tasks wrote last, readable from any thread without a lock.
 *
 * <p>Reads of an order are mostly of one that is moving (a client watching its order go through), so they ask for
 * what was written a moment ago. The store answers them too, but {@code RocksDBStore.get} is {@code synchronized} on
 * the monitor its stream thread holds for every write: a read waited whenever the stream thread lost its core while
 * writing, up to 27 ms on two busy cores, which set the p99 of {@code GET /api/v1/orders/:id}
 * (measured 2026-11-24; see docs/performance.md, "Live orders per partition"). A read finds the order here first and
 * asks the store only when it is not.
 *
 * <p>Each active task has its own {@link Partition}, opened when its processor is initialised and closed when it is
 * closed. Kafka Streams closes the processor before the task's state can change under it: before the task moves to
 * another instance, before a failed task's store is wiped and restored (an aborted exactly-once transaction), and
 * before an active task becomes a standby. So what a partition holds is always what its store holds, written or not
 * yet committed, as a read of the store would see it; once the task is gone, its orders are read from the store or
 * the owner, as before. Each partition keeps the last {@code perPartition} orders written; an order written longer
 * ago is read from the store.
 */
public final class LiveOrders {

    private final Map<Integer, Partition> partitions = new ConcurrentHashMap<>();
    private final int perPartition;

    /**
     * @param perPartition the orders each partition keeps ({@code LIVE_ORDERS_PER_PARTITION}, 128 by default: the
     *                     last 0.8 s of orders at 500 a second on the standalone system's three partitions). More is
     *                     not free: a kept order lives through young collections, which copy it each time; 256 a
     *                     partition doubled the survivors and made a young pause about 2 ms longer
     *                     (measured 2026-11-24, docs/performance.md). 0 keeps none: every read asks the store.
     */
    public LiveOrders(int perPartition) {
        if (perPartition < 0) {
            throw new IllegalArgumentException("perPartition must not be negative, was " + perPartition);
        }
        this.perPartition = perPartition;
    }

    /** The stored JSON of the order as an active task of this instance last wrote it, or null. */
    public byte[] latest(String orderId) {
        for (Partition partition : partitions.values()) {
            byte[] state = partition.latest(orderId);
            if (state != null) {
                return state;
            }
        }
        return null;
    }

    /**
     * The store {@code name} of the active task of {@code partition} as its processor holds it, or null when this
     * instance has no such task (then interactive queries answer, or the owner).
     *
     * <p>The list, search and count reads go through the index's stores row by row, and an interactive query's store
     * looks its task up again on every call ({@code CompositeReadOnlyKeyValueStore.get} asks the stream threads for
     * their active tasks each time): with 500,000 orders kept, that lookup took 84% of the processor's CPU samples
     * during the counts of a search, 890 ms at the median for 500 rows (JFR, 2026-11-27, ReadsAtSize). The task's own
     * store object answers the same reads from the same RocksDB instance; it is handed out only while the task's
     * processor is open, as the orders above are.
     */
    public ReadOnlyKeyValueStore<String, byte[]> store(int partition, String name) {
        Partition open = partitions.get(partition);
        return open == null ? null : open.stores.get(name);
    }

    /** A new, empty partition for the task of {@code partition}, in place of any earlier one. */
    Partition open(int partition) {
        Partition opened = new Partition(perPartition);
        partitions.put(partition, opened);
        return opened;
    }

    /** Forgets {@code closed}'s orders, unless a newer task of the partition has opened it again since. */
    void close(int partition, Partition closed) {
        partitions.remove(partition, closed);
    }

    /** The orders of one task: written by its stream thread only, read by any thread. */
    static final class Partition {

        private final Map<String, byte[]> latest = new ConcurrentHashMap<>();
        /** The task's stores that reads may use, by name. */
        private final Map<String, ReadOnlyKeyValueStore<String, byte[]>> stores = new ConcurrentHashMap<>();
        /** The same orders, oldest write first; the stream thread's own. */
        private final LinkedHashMap<String, byte[]> byAge;
        private final boolean keeps;

        private Partition(int capacity) {
            keeps = capacity > 0;
            byAge = new LinkedHashMap<>(capacity * 2) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, byte[]> eldest) {
                    if (size() <= capacity) {
                        return false;
                    }
                    latest.remove(eldest.getKey(), eldest.getValue());
                    return true;
                }
            };
        }

        byte[] latest(String orderId) {
            return latest.get(orderId);
        }

        /** Offers the task's store {@code name} to reads until the partition is closed. */
        void serve(String name, ReadOnlyKeyValueStore<String, byte[]> store) {
            stores.put(name, store);
        }

        /** The order left the store (archived): reads no longer find it here. */
        void forget(String orderId) {
            latest.remove(orderId);
            byAge.remove(orderId);
        }

        /** Keeps {@code state}, the bytes just put in the store, as the order's latest and newest written. */
        void wrote(String orderId, byte[] state) {
            if (!keeps) {
                return;
            }
            latest.put(orderId, state);
            byAge.remove(orderId);
            byAge.put(orderId, state);
        }
    }
}
