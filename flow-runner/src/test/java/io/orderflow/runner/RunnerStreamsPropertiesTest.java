package io.orderflow.runner;

import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.testing.StreamsClients;
import org.junit.jupiter.api.Test;

class RunnerStreamsPropertiesTest {

    private final RunnerProperties settings =
            new RunnerProperties(new KafkaSettings("localhost:9092"), "./data", 1440, null, null);

    /** As the processor's: the runner's tasks and reports cross the same loopback connections (see SocketBuffers). */
    @Test
    void everyClientOfTheRunnerLeavesSocketBuffersToTheSystem() {
        StreamsClients.assertEachLeavesSocketBuffersToTheSystem(
                new RunnerStreams(settings, null, null).streamsConfig());
    }

    /** As the processor's: an order's run reports wait for the runner's commit as replies wait for the processor's. */
    @Test
    void theStreamThreadCommitsOnTimeWhenNothingMoreArrives() {
        StreamsClients.assertPollsNoLongerThanItsCommitInterval(
                new RunnerStreams(settings, null, null).streamsConfig());
    }
}
