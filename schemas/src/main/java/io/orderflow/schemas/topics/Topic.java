package io.orderflow.schemas.topics;

import org.apache.kafka.common.serialization.Serde;

/**
 * A topic of the system: its name, how its keys and values are written, and whether it is compacted.
 * The constants live in {@link Topics}; services never spell a topic name themselves.
 */
public record Topic<K, V>(String name, Serde<K> keySerde, Serde<V> valueSerde, boolean compacted) {
}
