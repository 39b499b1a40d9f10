package io.orderflow.runner.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The runner under clock control: its clock jumps ahead of the wall clock its punctuator runs on. A sleep falls due by
 * the decider's clock and wakes at the next sweep; what the runner sends keeps real-time Kafka timestamps.
 */
class RunnerClockControlTest {

    /** The subscription's 30-day renewal wait, scaled by 1440. */
    private static final Duration RENEWAL = Duration.ofMinutes(30);
    private static final Duration SWEEP = Duration.ofMillis(250);

    private final RunnerHarness runner = new RunnerHarness();

    @AfterEach
    void close() {
        runner.close();
    }

    @Test
    void a_renewal_sleep_wakes_at_the_first_sweep_after_the_clock_passed_it() {
        runner.send(new NodeTask.StartRun("ord_clock", "ord_clock.1", RunnerHarness.version("subscription", 1),
                RunnerHarness.order("ord_clock", "subscription", "{\"lines\":[{\"sku\":\"SAAS-SEAT\",\"qty\":5}]}"),
                Json.MAPPER.readTree("{\"term\":2}")));
        assertThat(charges()).isEqualTo(1);

        runner.clock.advance(RENEWAL.minusSeconds(1));
        runner.advanceWallClock(SWEEP);
        assertThat(charges()).as("still asleep").isEqualTo(1);

        runner.clock.advance(Duration.ofSeconds(1));
        runner.advanceWallClock(SWEEP);
        assertThat(charges()).as("the renewal charged").isEqualTo(2);
        assertThat(runner.lastProgress().vars().get("renewals").asInt()).isEqualTo(1);
    }

    @Test
    void what_the_runner_sends_is_stamped_with_real_time() {
        long realNow = runner.clock.millis();
        runner.clock.advance(Duration.ofDays(400));
        runner.send(new NodeTask.StartRun("ord_stamp", "ord_stamp.1", RunnerHarness.version("subscription", 1),
                RunnerHarness.order("ord_stamp", "subscription", "{\"lines\":[{\"sku\":\"SAAS-SEAT\",\"qty\":5}]}"),
                Json.object()));

        assertThat(runner.allRecords).isNotEmpty()
                .allSatisfy(record -> assertThat(record.timestamp()).isEqualTo(realNow));
        assertThat(runner.allEvents.getFirst().occurredAt()).as("the event tells the decider's time")
                .isEqualTo(runner.clock.millis());
    }

    private long charges() {
        return runner.allReports.stream().filter(RunReport.NodeDetail.class::isInstance)
                .map(RunReport.NodeDetail.class::cast)
                .filter(d -> d.nodeId().equals("charge") && d.patch().status() == NodeStatus.SUCCEEDED).count();
    }
}
