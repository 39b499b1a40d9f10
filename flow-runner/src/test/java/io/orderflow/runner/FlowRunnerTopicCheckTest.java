package io.orderflow.runner;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.orderflow.kafka.embedded.EmbeddedKafkaBroker;
import io.orderflow.kafka.testing.TestKafka;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A service started on a cluster without its topics stops at once, saying which topics are missing and how to create
 * them, instead of waiting for them.
 */
class FlowRunnerTopicCheckTest {

    @Test
    void refusesToStartOnAClusterWithoutTheTopicsAndNamesThem() {
        try (EmbeddedKafkaBroker empty = EmbeddedKafkaBroker.start(TestKafka.uniqueStateDir("no-topics"), 0)) {
            String[] args = {
                    "--orderflow.kafka.bootstrap-servers=" + empty.bootstrapServers(),
                    "--orderflow.data-dir=" + TestKafka.uniqueStateDir("runner-no-topics"),
                    "--orderflow.streams.application-id=" + TestKafka.uniqueApplicationId("runner-no-topics")};

            assertTimeoutPreemptively(Duration.ofSeconds(45), () ->
                    assertThatThrownBy(() -> FlowRunnerApplication.application().run(args).close())
                            .rootCause()
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("missing [flows, order-commands")
                            .hasMessageContaining("provision with: TOPIC_PARTITIONS="));
        }
    }
}
