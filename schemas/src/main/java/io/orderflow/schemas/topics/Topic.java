package io.orderflow.schemas.topics;

import java.util.Map;
import org.apache.kafka.common.serialization.Serde;

/**
 * A topic of the system: its name, how its keys and values are written, whether it is compacted, and the topic
 * configuration it is created with beyond that (retention, say; empty: the broker's defaults).
 * The constants live in {@link Topics}; services never spell a topic name themselves.
 */
public record Topic<K, V>(String name, Serde<K> keySerde, Serde<V> valueSerde, boolean compacted,
                          Map<String, String> config) {

    public Topic {
        config = config == null ? Map.of() : Map.copyOf(config);
    }

    /** A topic created with the broker's defaults but its cleanup policy. */
    public Topic(String name, Serde<K> keySerde, Serde<V> valueSerde, boolean compacted) {
        this(name, keySerde, valueSerde, compacted, Map.of());
    }
}
