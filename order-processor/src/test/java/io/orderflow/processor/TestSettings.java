package io.orderflow.processor;

import io.orderflow.kafka.KafkaSettings;

/** Processor settings for tests that build the processor's parts by hand: the defaults, on a broker nobody calls. */
public final class TestSettings {

    private TestSettings() {
    }

    public static ProcessorProperties processor() {
        return new ProcessorProperties(new KafkaSettings("localhost:9092"), "./data", 1440, 5,
                new ProcessorProperties.Streams("app", "/tmp/state", "localhost", 50, 128), java.time.Duration.ofDays(30));
    }
}
