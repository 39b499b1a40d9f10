package io.orderflow.kafka.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.clock.ClockFollower;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.clock.ClockSetting;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Followers of the clock topic on a real broker: a change one publishes is the time of every follower, and a follower
 * started later starts at it. The cluster is a test's own, since the clock topic is one per deployment.
 */
class ClockFollowerTest {

    @Test
    void every_follower_tells_the_time_the_topic_holds() throws Exception {
        try (TestKafka.Cluster cluster = TestKafka.newCluster()) {
            KafkaSettings kafka = new KafkaSettings(cluster.bootstrapServers());
            ClockFollower gateway = new ClockFollower(kafka, "gateway");
            ClockFollower processor = new ClockFollower(kafka, "order-processor");
            gateway.start();
            processor.start();
            try {
                assertThat(processor.clock().offset()).isZero();
                assertThat(processor.setting()).isEmpty();
                long before = System.currentTimeMillis();

                long twoDays = Duration.ofDays(2).toMillis();
                gateway.publish(new ClockSetting(twoDays, System.currentTimeMillis(), "ops@example.com"))
                        .get(10, TimeUnit.SECONDS);
                assertThat(gateway.clock().offsetMillis()).as("the writer reads its own change at once")
                        .isEqualTo(twoDays);
                await().atMost(Duration.ofSeconds(10)).until(() -> processor.clock().offsetMillis() == twoDays);
                assertThat(processor.clock().millis()).isGreaterThanOrEqualTo(before + twoDays);
                assertThat(processor.setting().orElseThrow().changedBy()).isEqualTo("ops@example.com");

                ClockFollower runner = new ClockFollower(kafka, "flow-runner");
                runner.start();
                try {
                    assertThat(runner.clock().offsetMillis()).as("started at the offset the topic holds")
                            .isEqualTo(twoDays);
                } finally {
                    runner.stop();
                }

                gateway.publish(new ClockSetting(0, System.currentTimeMillis(), "ops@example.com"))
                        .get(10, TimeUnit.SECONDS);
                await().atMost(Duration.ofSeconds(10)).until(() -> processor.clock().offsetMillis() == 0);
            } finally {
                processor.stop();
                gateway.stop();
            }
        }
    }
}
