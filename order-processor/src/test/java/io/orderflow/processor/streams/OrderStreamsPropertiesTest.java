package io.orderflow.processor.streams;

import io.orderflow.kafka.testing.StreamsClients;
import io.orderflow.processor.TestSettings;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.Test;

class OrderStreamsPropertiesTest {

    /**
     * A socket buffer a client sets cannot grow, and over loopback a full one dropped segments that TCP resent 200 ms
     * later: the processor's fetches waited for them (see {@code SocketBuffers}).
     */
    @Test
    void everyClientOfTheProcessorLeavesSocketBuffersToTheSystem() {
        StreamsClients.assertEachLeavesSocketBuffersToTheSystem(
                new OrderStreams(TestSettings.processor()).properties(new HostInfo("localhost", 8081)));
    }

    /**
     * The gateway's callers wait for the replies a commit makes visible: with Kafka Streams' 100 ms poll, a steady 128
     * orders in flight waited out that poll at every round (see {@code OrderStreams.properties}).
     */
    @Test
    void theStreamThreadCommitsOnTimeWhenNothingMoreArrives() {
        StreamsClients.assertPollsNoLongerThanItsCommitInterval(
                new OrderStreams(TestSettings.processor()).properties(new HostInfo("localhost", 8081)));
    }
}
