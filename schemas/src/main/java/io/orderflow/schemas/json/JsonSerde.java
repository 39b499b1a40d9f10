package io.orderflow.schemas.json;

import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/** A Kafka serde for one record type, written with {@link Json#MAPPER}. A {@code null} value is a tombstone. */
public final class JsonSerde<T> implements Serde<T> {

    private final Class<T> type;

    public JsonSerde(Class<T> type) {
        this.type = type;
    }

    public static <T> JsonSerde<T> of(Class<T> type) {
        return new JsonSerde<>(type);
    }

    public Class<T> type() {
        return type;
    }

    @Override
    public Serializer<T> serializer() {
        return (topic, value) -> value == null ? null : Json.MAPPER.writeValueAsBytes(value);
    }

    @Override
    public Deserializer<T> deserializer() {
        return (topic, bytes) -> bytes == null ? null : Json.MAPPER.readValue(bytes, type);
    }
}
