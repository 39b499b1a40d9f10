package io.orderflow.processor.store;

import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;

/**
 * A key range read from the stores of several partitions at once, in key order: each partition's store iterates its
 * own keys in order, and the scan merges their heads. Only one entry per partition is held at a time. Each entry
 * comes with the store it is from, where its row is looked up.
 */
public final class IndexScan implements AutoCloseable {

    /** One entry of the scan and the store (partition) it came from. */
    public record Entry(String key, byte[] value, ReadOnlyKeyValueStore<String, byte[]> store) {
    }

    private record Head(KeyValue<String, byte[]> entry, KeyValueIterator<String, byte[]> rest,
                        ReadOnlyKeyValueStore<String, byte[]> store) {
    }

    private final List<KeyValueIterator<String, byte[]>> open = new ArrayList<>();
    private final PriorityQueue<Head> heads = new PriorityQueue<>(Comparator.comparing(head -> head.entry().key));

    /** Keys from {@code from} to {@code to}, both inclusive, of every store. */
    public IndexScan(List<ReadOnlyKeyValueStore<String, byte[]>> stores, String from, String to) {
        try {
            for (ReadOnlyKeyValueStore<String, byte[]> store : stores) {
                KeyValueIterator<String, byte[]> it = store.range(from, to);
                open.add(it);
                if (it.hasNext()) {
                    heads.add(new Head(it.next(), it, store));
                }
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The keys starting with {@code prefix} from {@code from} on (null: the first), in key order. */
    public static IndexScan prefixed(List<ReadOnlyKeyValueStore<String, byte[]>> stores, String prefix, String from,
                                     String to) {
        return new IndexScan(stores, from == null ? prefix : from, to == null ? end(prefix) : to);
    }

    /** A key past every key starting with {@code prefix} and before any other greater key. */
    public static String end(String prefix) {
        return prefix + Character.MAX_VALUE;
    }

    public boolean hasNext() {
        return !heads.isEmpty();
    }

    public Entry next() {
        Head head = heads.poll();
        if (head == null) {
            throw new NoSuchElementException();
        }
        if (head.rest().hasNext()) {
            heads.add(new Head(head.rest().next(), head.rest(), head.store()));
        }
        return new Entry(head.entry().key, head.entry().value, head.store());
    }

    /** Counts the entries left, up to {@code most}. */
    public int count(int most) {
        int counted = 0;
        while (counted < most && hasNext()) {
            next();
            counted++;
        }
        return counted;
    }

    @Override
    public void close() {
        open.forEach(KeyValueIterator::close);
        open.clear();
        heads.clear();
    }
}
