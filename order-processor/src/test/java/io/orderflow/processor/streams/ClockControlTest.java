package io.orderflow.processor.streams;

import static io.orderflow.processor.streams.Fixtures.ORDER;
import static io.orderflow.processor.streams.Fixtures.start;
import static io.orderflow.processor.streams.Reports.approvalWait;
import static io.orderflow.processor.streams.Reports.eventWait;
import static io.orderflow.processor.streams.Reports.progress;
import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.processor.order.OrderState;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.TimelineEntry;
import io.orderflow.schemas.tasks.NodeTask;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The agent under clock control: its clock jumps ahead of the wall clock that runs its punctuator. Deadlines fall due
 * by the agent's clock and fire at the next sweep; what it records carries the agent's time, while the Kafka
 * timestamps of what it sends stay real time.
 */
class ClockControlTest {

    private static final long TWO_DAYS = Duration.ofDays(2).toMillis();
    private static final long THIRTY_DAYS = Duration.ofDays(30).toMillis();

    private final AgentDriver agent = new AgentDriver();

    @BeforeEach
    void givenAWaitingOrder() {
        agent.command(start(ORDER));
        agent.report(progress(1, 1, OrderStatus.WAITING));
        agent.drain();
    }

    @AfterEach
    void close() {
        agent.close();
    }

    @Test
    void anApprovalEscalatesAtTheFirstSweepAfterTheClockPassedItsDeadline() {
        agent.report(approvalWait(TWO_DAYS, agent.now()));
        agent.drain();

        agent.clock.advance(Duration.ofMinutes(3)); // past the scaled deadline of two minutes; no real time has passed
        assertThat(agent.state(ORDER).waits()).as("nothing fires between sweeps").hasSize(1);

        agent.advanceWallClock(OrderTopology.SWEEP_INTERVAL);

        assertThat(agent.state(ORDER).waits()).isEmpty();
        assertThat(agent.approval(ORDER, "approve").status()).isEqualTo("escalated");
        assertThat(agent.tasks()).extracting(task -> ((NodeTask.ResumeNode) task).branch())
                .containsExactly("escalated");
        TimelineEntry close = agent.state(ORDER).timeline().getLast();
        assertThat(close.kind()).isEqualTo("close:approval");
        assertThat(close.at()).as("recorded at the agent's time").isEqualTo(agent.now());
    }

    @Test
    void aWaitForAnEventTimesOutOnceTheClockPassedItsTimeout() {
        agent.report(eventWait("payment.received", THIRTY_DAYS, agent.now()));
        agent.drain();

        agent.clock.advance(Duration.ofMinutes(29)); // the scaled timeout is 30 minutes
        agent.advanceWallClock(OrderTopology.SWEEP_INTERVAL);
        assertThat(agent.state(ORDER).waits()).hasSize(1);

        agent.clock.advance(Duration.ofMinutes(1));
        agent.advanceWallClock(OrderTopology.SWEEP_INTERVAL);
        assertThat(agent.state(ORDER).waits()).isEmpty();
        assertThat(agent.tasks()).extracting(task -> ((NodeTask.ResumeNode) task).branch())
                .containsExactly("timeout");
    }

    @Test
    void whatTheAgentSendsIsStampedWithRealTimeAndCarriesItsOwn() {
        long realNow = agent.now();
        agent.clock.advance(Duration.ofDays(400)); // far past what a broker accepts as a record timestamp
        agent.report(approvalWait(TWO_DAYS, agent.now()));

        List<TestRecord<String, ?>> sent = agent.sent();
        assertThat(sent).isNotEmpty().allSatisfy(record -> assertThat(record.timestamp()).isEqualTo(realNow));
        OrderState state = agent.state(ORDER);
        assertThat(state.waits().getFirst().since()).isEqualTo(agent.now());
        assertThat(state.waits().getFirst().deadline()).isEqualTo(agent.now() + 120_000);
    }
}
