package io.orderflow.kafka;

import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.CompressionType;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.WriteBufferManager;

/**
 * One memory budget for every RocksDB store of the Kafka Streams services in this JVM
 * ({@code rocksdb.config.setter}). Left to its defaults, each store instance (one per store and partition: 18 in
 * the standalone system) gets its own 50 MB block cache and up to three 16 MB memtables, so memory grows with the
 * stored orders and the partition count; here block cache, index and filter blocks and memtables share one LRU cache
 * of {@value #TOTAL_MB} MB, memtables counted in it up to {@value #MEMTABLE_MB} MB (the pattern of the Kafka Streams
 * memory-management guide).
 */
public final class BoundedRocksDb implements RocksDBConfigSetter {

    static final long TOTAL_MB = 96;
    static final long MEMTABLE_MB = 32;
    private static final long MB = 1024 * 1024;
    /** Per store instance: a memtable is flushed at 4 MB; at most two are held. */
    private static final long MEMTABLE_SIZE = 4 * MB;

    // Shared by every store of the JVM on purpose: a budget per store would again grow with the stores.
    private static final Cache CACHE = new LRUCache(TOTAL_MB * MB, -1, false, 0.1);
    private static final WriteBufferManager WRITE_BUFFERS = new WriteBufferManager(MEMTABLE_MB * MB, CACHE);

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
        table.setBlockCache(CACHE);
        table.setCacheIndexAndFilterBlocks(true);
        table.setCacheIndexAndFilterBlocksWithHighPriority(true);
        table.setPinTopLevelIndexAndFilter(true);
        options.setWriteBufferManager(WRITE_BUFFERS);
        options.setWriteBufferSize(MEMTABLE_SIZE);
        options.setMaxWriteBufferNumber(2);
        // Kafka Streams leaves RocksDB uncompressed. The stores hold JSON (order states, index rows) and index keys
        // that share long prefixes, which LZ4 shrinks several times over at a small CPU cost per block written.
        options.setCompressionType(CompressionType.LZ4_COMPRESSION);
        options.setTableFormatConfig(table);
    }

    @Override
    public void close(String storeName, Options options) {
        // The cache and the write buffer manager are the JVM's, shared by every store: never closed here.
    }
}
