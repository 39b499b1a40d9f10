package io.orderflow.processor.streams;

import io.orderflow.processor.order.OrderState;
import io.orderflow.schemas.model.NodePatch;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.Rollback;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import static io.orderflow.processor.streams.Fixtures.ORDER;
import static io.orderflow.processor.streams.Fixtures.start;
import static io.orderflow.processor.streams.Reports.INSTANCE;
import static io.orderflow.processor.streams.Reports.detail;
import static io.orderflow.processor.streams.Reports.progress;
import static org.assertj.core.api.Assertions.assertThat;

/** A failed run: the agent polls the instance every 10 s, at most 60 times, and records the rollback. */
class RollbackPollTest {

    private final AgentDriver agent = new AgentDriver();

    @BeforeEach
    void givenAFailedOrder() {
        agent.command(start(ORDER));
        agent.report(progress(1, 1, OrderStatus.RUNNING));
        agent.drain();
        agent.report(progress(1, 2, OrderStatus.FAILED));
    }

    @AfterEach
    void close() {
        agent.close();
    }

    @Test
    void theFailedOrderIsPolledAtOnceAndEveryTenSeconds() {
        assertThat(agent.state(ORDER).status()).isEqualTo(OrderStatus.FAILED);
        assertThat(agent.state(ORDER).reason()).isEqualTo("Payment connector failed");
        assertThat(agent.tasks()).containsExactly(new NodeTask.QueryInstance(ORDER, INSTANCE, 1));

        agent.advance(Duration.ofSeconds(9));
        assertThat(agent.tasks()).isEmpty();
        agent.advance(Duration.ofSeconds(1));
        assertThat(agent.tasks()).containsExactly(new NodeTask.QueryInstance(ORDER, INSTANCE, 2));
        agent.advance(Duration.ofSeconds(10));
        assertThat(agent.tasks()).containsExactly(new NodeTask.QueryInstance(ORDER, INSTANCE, 3));
    }

    @Test
    void aRunningInstanceKeepsThePollGoingAndACompleteRollbackMovesToRolledBack() {
        agent.report(new RunReport.InstanceStatus(ORDER, INSTANCE, 1, "running", null));
        assertThat(agent.state(ORDER).rollback()).isNull();

        agent.report(new RunReport.InstanceStatus(ORDER, INSTANCE, 1, "errored", new Rollback("complete", null)));

        OrderState state = agent.state(ORDER);
        assertThat(state.status()).isEqualTo(OrderStatus.ROLLED_BACK);
        assertThat(state.rollback()).isEqualTo(new Rollback("complete", null));
        agent.drain();
        agent.advance(Duration.ofSeconds(30));
        assertThat(agent.tasks()).isEmpty(); // settled: no more polls
    }

    @Test
    void anErroredInstanceWithARolledBackNodeCountsAsCompleteWhenTheOutcomeIsOmitted() {
        agent.report(detail("extract", new NodePatch(NodeStatus.ROLLED_BACK, null, null, null, null, null, null)));

        agent.report(new RunReport.InstanceStatus(ORDER, INSTANCE, 1, "errored", null));

        assertThat(agent.state(ORDER).status()).isEqualTo(OrderStatus.ROLLED_BACK);
        assertThat(agent.state(ORDER).rollback().outcome()).isEqualTo("complete");
    }

    @Test
    void aFailedRollbackStaysFailedWithItsError() {
        agent.report(new RunReport.InstanceStatus(ORDER, INSTANCE, 1, "terminated",
                new Rollback("failed", "Refund connector down")));

        OrderState state = agent.state(ORDER);
        assertThat(state.status()).isEqualTo(OrderStatus.FAILED);
        assertThat(state.rollback()).isEqualTo(new Rollback("failed", "Refund connector down"));
    }

    @Test
    void aRunThatNeverSettlesIsGivenUpAfterSixtyPolls() {
        agent.drain();

        IntStream.range(0, 59).forEach(i -> agent.advance(Duration.ofSeconds(10)));
        List<NodeTask> polls = agent.tasks();
        assertThat(polls).hasSize(59);
        assertThat(((NodeTask.QueryInstance) polls.getLast()).attempt()).isEqualTo(60);
        assertThat(agent.state(ORDER).rollback()).isNull();

        agent.advance(Duration.ofSeconds(10));

        OrderState state = agent.state(ORDER);
        assertThat(agent.tasks()).isEmpty();
        assertThat(state.status()).isEqualTo(OrderStatus.FAILED);
        assertThat(state.rollback()).isEqualTo(new Rollback("failed", "The run did not settle in time."));
        assertThat(agent.timers()).isEmpty();
    }

    @Test
    void aSecondFailedReportDoesNotStartASecondPoll() {
        agent.drain();

        agent.report(progress(1, 3, OrderStatus.FAILED));

        assertThat(agent.tasks()).isEmpty();
        assertThat(agent.timers()).hasSize(1);
    }
}
