package io.orderflow.kafka.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.streams.StreamsConfig;

/** The clients Kafka Streams creates from an application's properties, each with the configuration it derives. */
public final class StreamsClients {

    private StreamsClients() {
    }

    /**
     * Asserts that the main, restore and global consumers, the producer and the admin client of a Streams application
     * leave their TCP buffers to the operating system ({@code io.orderflow.kafka.SocketBuffers}).
     */
    public static void assertEachLeavesSocketBuffersToTheSystem(Properties properties) {
        StreamsConfig config = new StreamsConfig(properties);
        Map<String, Map<String, Object>> clients = Map.of(
                "main consumer", config.getMainConsumerConfigs("group", "client", 0),
                "restore consumer", config.getRestoreConsumerConfigs("client"),
                "global consumer", config.getGlobalConsumerConfigs("client"),
                "producer", config.getProducerConfigs("client"),
                "admin", config.getAdminConfigs("client"));
        assertThat(clients).allSatisfy((client, clientConfig) -> assertThat(clientConfig).as(client)
                .containsEntry(CommonClientConfigs.RECEIVE_BUFFER_CONFIG, -1)
                .containsEntry(CommonClientConfigs.SEND_BUFFER_CONFIG, -1));
    }

    /**
     * Asserts that a Streams application's thread blocks in a poll with nothing to fetch no longer than its commit
     * interval: it commits only between polls, so a longer poll holds back what its tasks wrote.
     */
    public static void assertPollsNoLongerThanItsCommitInterval(Properties properties) {
        StreamsConfig config = new StreamsConfig(properties);
        assertThat(config.getLong(StreamsConfig.POLL_MS_CONFIG))
                .isLessThanOrEqualTo(config.getLong(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG));
    }
}
