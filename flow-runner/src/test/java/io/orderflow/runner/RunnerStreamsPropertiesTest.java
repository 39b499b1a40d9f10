package io.orderflow.runner;

import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.testing.StreamsClients;
import org.junit.jupiter.api.Test;

class RunnerStreamsPropertiesTest {

    /** As the processor's: the runner's tasks and reports cross the same loopback connections (see SocketBuffers). */
    @Test
    void everyClientOfTheRunnerLeavesSocketBuffersToTheSystem() {
        var settings = new RunnerProperties(new KafkaSettings("localhost:9092"), "./data", 1440, null, null);

        StreamsClients.assertEachLeavesSocketBuffersToTheSystem(
                new RunnerStreams(settings, null, null).streamsConfig());
    }
}
