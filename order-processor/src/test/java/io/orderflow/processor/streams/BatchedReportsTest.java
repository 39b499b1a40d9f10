package io.orderflow.processor.streams;

import io.orderflow.schemas.events.OrderUpdate;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.reports.RunReport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.orderflow.processor.streams.Fixtures.ORDER;
import static io.orderflow.processor.streams.Fixtures.start;
import static io.orderflow.processor.streams.Reports.INSTANCE;
import static io.orderflow.processor.streams.Reports.approvalWait;
import static io.orderflow.processor.streams.Reports.detail;
import static io.orderflow.processor.streams.Reports.ended;
import static io.orderflow.processor.streams.Reports.log;
import static io.orderflow.processor.streams.Reports.progress;
import static io.orderflow.processor.streams.Reports.started;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runner sends what one task produced as one {@link RunReport.Batch}. The agent applies it exactly as it would
 * apply the reports one by one, but stores the order once and sends one {@code order-updates} notice.
 */
class BatchedReportsTest {

    private final AgentDriver batched = new AgentDriver();
    private final AgentDriver oneByOne = new AgentDriver();

    @AfterEach
    void close() {
        batched.close();
        oneByOne.close();
    }

    /** A task that runs the first node and stops at an approval, as the runner reports it. */
    private List<RunReport> upToAnApproval(long t0) {
        return List.of(
                progress(1, 1, OrderStatus.RUNNING, Map.of("extract", NodeStatus.RUNNING),
                        Map.of("e1", EdgeState.PENDING), null),
                detail("extract", started(t0)),
                detail("extract", ended(t0 + 1)),
                log("extract", t0 + 1, "Extract order: 2 lines", null),
                approvalWait(Duration.ofHours(1).toMillis(), t0 + 2),
                progress(1, 2, OrderStatus.WAITING,
                        Map.of("extract", NodeStatus.SUCCEEDED, "approve", NodeStatus.WAITING),
                        Map.of("e1", EdgeState.ACTIVE), null));
    }

    @Test
    void aBatchLeavesTheOrderItsApprovalAndItsDeadlineAsItsReportsOneByOneWould() {
        for (AgentDriver agent : List.of(batched, oneByOne)) {
            agent.command(start(ORDER));
            agent.advance(Duration.ofSeconds(1));
            agent.drain();
        }
        List<RunReport> reports = upToAnApproval(batched.now());

        batched.report(new RunReport.Batch(ORDER, INSTANCE, reports));
        reports.forEach(oneByOne::report);

        assertThat(batched.state(ORDER)).isEqualTo(oneByOne.state(ORDER));
        assertThat(batched.state(ORDER).status()).isEqualTo(OrderStatus.WAITING);
        assertThat(batched.state(ORDER).waits()).singleElement().extracting(w -> w.nodeId()).isEqualTo("approve");
        assertThat(batched.approval(ORDER, "approve")).isEqualTo(oneByOne.approval(ORDER, "approve")).isNotNull();
        assertThat(batched.timers()).isEqualTo(oneByOne.timers()).isNotEmpty();
        assertThat(batched.indexRow(ORDER)).isEqualTo(oneByOne.indexRow(ORDER));

        List<OrderUpdate> notices = batched.updates();
        assertThat(notices).as("one notice for the record, of the state it left").singleElement()
                .satisfies(notice -> {
                    assertThat(notice.status()).isEqualTo(OrderStatus.WAITING);
                    assertThat(notice.version()).isEqualTo(batched.state(ORDER).version());
                });
        assertThat(oneByOne.updates()).hasSize(reports.size());
    }

    @Test
    void aStaleSnapshotInsideABatchIsIgnoredWhileTheRestApplies() {
        batched.command(start(ORDER));
        batched.report(progress(1, 5, OrderStatus.WAITING));

        batched.report(new RunReport.Batch(ORDER, INSTANCE, List.of(
                progress(1, 4, OrderStatus.RUNNING),
                detail("extract", ended(batched.now())))));

        assertThat(batched.state(ORDER).status()).isEqualTo(OrderStatus.WAITING);
        assertThat(batched.state(ORDER).seq()).isEqualTo(5);
        assertThat(batched.state(ORDER).nodes().get("extract").status()).isEqualTo(NodeStatus.SUCCEEDED);
    }

    @Test
    void aBatchForAnUnknownOrderChangesNothingAndSendsNothing() {
        batched.report(new RunReport.Batch(ORDER, INSTANCE, upToAnApproval(batched.now())));

        assertThat(batched.state(ORDER)).isNull();
        assertThat(batched.updates()).isEmpty();
        assertThat(batched.tasks()).isEmpty();
        assertThat(batched.timers()).isEmpty();
    }
}
