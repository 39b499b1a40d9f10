package io.orderflow.processor.streams;

import io.orderflow.processor.order.NodeRun;
import io.orderflow.processor.order.OrderState;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.OrderIndexRow;
import io.orderflow.schemas.model.NodePatch;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.reports.RunReport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.Map;

import static io.orderflow.processor.streams.Fixtures.ORDER;
import static io.orderflow.processor.streams.Fixtures.start;
import static io.orderflow.processor.streams.Reports.approvalWait;
import static io.orderflow.processor.streams.Reports.detail;
import static io.orderflow.processor.streams.Reports.ended;
import static io.orderflow.processor.streams.Reports.log;
import static io.orderflow.processor.streams.Reports.order;
import static io.orderflow.processor.streams.Reports.progress;
import static io.orderflow.processor.streams.Reports.started;
import static org.assertj.core.api.Assertions.assertThat;

/** The six ordering rules for reports from the run, and node run records. */
class ReportOrderingTest {

    private final AgentDriver agent = new AgentDriver();

    @BeforeEach
    void givenAStartedOrder() {
        agent.command(start(ORDER));
    }

    @AfterEach
    void close() {
        agent.close();
    }

    @Test
    void rule1_aStaleOrDuplicateSequencedReportIsIgnored() {
        agent.report(progress(1, 2, OrderStatus.WAITING));

        agent.report(progress(1, 1, OrderStatus.RUNNING)); // out of order
        agent.report(progress(1, 2, OrderStatus.RUNNING)); // duplicate sequence

        assertThat(agent.state(ORDER).status()).isEqualTo(OrderStatus.WAITING);
        assertThat(agent.state(ORDER).seq()).isEqualTo(2);
    }

    @Test
    void rule1_aNewerGenerationIsFreshWhateverItsSequence() {
        agent.report(progress(1, 9, OrderStatus.RUNNING));

        agent.report(progress(2, 1, OrderStatus.WAITING));

        assertThat(agent.state(ORDER).status()).isEqualTo(OrderStatus.WAITING);
        assertThat(agent.state(ORDER).generation()).isEqualTo(2);
    }

    @Test
    void rule2_onlyFreshReportsUpdatePlanOrderAndVars() {
        // given a fresh plan: extract done, the approved branch taken, the order priced at 27.00
        JsonNode freshOrder = order("25.00", "2.00", "27.00");
        agent.report(progress(1, 2, OrderStatus.RUNNING, Map.of("extract", NodeStatus.SUCCEEDED),
                Map.of("e1", EdgeState.ACTIVE, "e2", EdgeState.INACTIVE), Json.object().put("v", 2), freshOrder));
        agent.drain();

        // when a stale report (lower sequence) and a duplicate (same sequence) carry another plan, order and vars
        agent.report(progress(1, 1, OrderStatus.RUNNING, Map.of("extract", NodeStatus.RUNNING),
                Map.of("e1", EdgeState.INACTIVE, "e2", EdgeState.ACTIVE, "e3", EdgeState.ACTIVE),
                Json.object().put("v", 1), order("90.00", "9.00", "99.00")));
        agent.report(progress(1, 2, OrderStatus.RUNNING, Map.of("extract", NodeStatus.FAILED),
                Map.of("e1", EdgeState.PENDING, "e4", EdgeState.ACTIVE),
                Json.object().put("v", 3), order("40.00", "4.00", "44.00")));

        // then nothing of them shows: nodes, edges, order (and its total in the list) and vars are the fresh ones
        OrderState state = agent.state(ORDER);
        assertThat(state.nodes().get("extract").status()).isEqualTo(NodeStatus.SUCCEEDED);
        assertThat(state.vars()).isEqualTo(Json.object().put("v", 2));
        assertThat(state.edges()).containsExactlyInAnyOrderEntriesOf(Map.of("e1", EdgeState.ACTIVE,
                "e2", EdgeState.INACTIVE, "e3", EdgeState.PENDING, "e4", EdgeState.PENDING));
        assertThat(state.order()).isEqualTo(freshOrder);
        assertThat(state.order().get("total").decimalValue()).isEqualByComparingTo("27.00");
        assertThat(agent.updates()).as("no notice is published for an ignored report").isEmpty();
        assertThat(agent.indexRows()).singleElement()
                .satisfies(row -> assertThat(row.total()).isEqualByComparingTo("27.00"));
    }

    @Test
    void rule3_aPlanNeverClearsARolledBackOrFailedNode() {
        agent.report(detail("extract", new NodePatch(NodeStatus.ROLLED_BACK, null, null, null, null, null, null)));
        agent.report(detail("approve", new NodePatch(NodeStatus.FAILED, null, null, null, null, "boom", null)));

        agent.report(progress(1, 1, OrderStatus.RUNNING,
                Map.of("extract", NodeStatus.SUCCEEDED, "approve", NodeStatus.PENDING, "pay", NodeStatus.RUNNING),
                Map.of(), null));

        OrderState state = agent.state(ORDER);
        assertThat(state.nodes().get("extract").status()).isEqualTo(NodeStatus.ROLLED_BACK);
        assertThat(state.nodes().get("approve").status()).isEqualTo(NodeStatus.FAILED);
        assertThat(state.nodes().get("pay").status()).isEqualTo(NodeStatus.RUNNING);
    }

    @Test
    void rule4_unsequencedDetailReportsAlwaysApply() {
        agent.report(progress(1, 5, OrderStatus.COMPLETED));

        agent.report(new RunReport.NodeDetail(ORDER, "some-old-instance", "extract",
                new NodePatch(null, null, null, "Extracted 2 lines", null, null, null),
                io.orderflow.schemas.model.TimelineEntry.of(agent.now(), "node", "extract finished")));

        OrderState state = agent.state(ORDER);
        assertThat(state.nodes().get("extract").summary()).isEqualTo("Extracted 2 lines");
        assertThat(state.timeline().getLast().message()).isEqualTo("extract finished");
        assertThat(state.timeline().getLast().nodeId()).isEqualTo("extract");
    }

    @Test
    void rule4_aBatchOfDetailsAppliesEachInOrderAsOneStoredChange() {
        agent.drain();

        agent.report(new RunReport.Batch(ORDER, ORDER + ".1", java.util.List.of(
                new RunReport.NodeDetail(ORDER, ORDER + ".1", "extract",
                        new NodePatch(NodeStatus.SUCCEEDED, null, null, "Extracted 2 lines", null, null, null),
                        io.orderflow.schemas.model.TimelineEntry.of(agent.now(), "node", "extract finished")),
                new RunReport.NodeDetail(ORDER, ORDER + ".1", "approve",
                        new NodePatch(null, null, null, "Waiting for manager", null, null, null),
                        io.orderflow.schemas.model.TimelineEntry.of(agent.now(), "node", "approve opened")))));

        OrderState state = agent.state(ORDER);
        assertThat(state.nodes().get("extract").summary()).isEqualTo("Extracted 2 lines");
        assertThat(state.nodes().get("approve").summary()).isEqualTo("Waiting for manager");
        assertThat(state.timeline()).extracting(e -> e.message()).endsWith("extract finished", "approve opened");
        assertThat(agent.updates()).as("one notice for the whole batch, of the state it left")
                .singleElement().extracting(u -> u.version()).isEqualTo(state.version());
    }

    @Test
    void rule5_aKeyedTimelineEntryReplacesTheEarlierOne() {
        agent.report(log("extract", 1, "attempt 1 failed", "retry:extract"));
        agent.report(log("extract", 2, "unrelated", null));
        int size = agent.state(ORDER).timeline().size();

        agent.report(log("extract", 3, "attempt 2 failed", "retry:extract"));

        OrderState state = agent.state(ORDER);
        assertThat(state.timeline()).hasSize(size);
        assertThat(state.timeline()).extracting(e -> e.message())
                .contains("attempt 2 failed").doesNotContain("attempt 1 failed");
    }

    @Test
    void rule6_aContinuationThatIsNotNewerIsIgnored() {
        agent.report(new RunReport.Continued(ORDER, ORDER + ".2", 2, ORDER + ".1"));
        agent.report(progress(2, 3, OrderStatus.RUNNING));

        agent.report(new RunReport.Continued(ORDER, ORDER + ".other", 2, ORDER + ".1")); // same generation, replayed
        agent.report(new RunReport.Continued(ORDER, ORDER + ".old", 1, ORDER + ".0"));

        OrderState state = agent.state(ORDER);
        assertThat(state.instanceId()).isEqualTo(ORDER + ".2");
        assertThat(state.seq()).isEqualTo(3);
    }

    @Test
    void aRetriedStartKeepsTheFirstStartAndARunRecordIsWrittenOnce() {
        agent.report(detail("extract", started(1_000)));
        agent.report(detail("extract", started(1_500))); // retried attempt

        agent.report(detail("extract", ended(2_000)));
        agent.report(detail("extract", ended(2_000))); // replayed
        agent.report(detail("extract", started(1_000))); // replayed start of the finished run
        agent.report(detail("extract", ended(2_000)));

        var node = agent.state(ORDER).nodes().get("extract");
        assertThat(node.runs()).containsExactly(NodeRun.of(1_000, 2_000));
        assertThat(node.startedAt()).isEqualTo(1_000);
        assertThat(node.endedAt()).isEqualTo(2_000);
        assertThat(node.status()).isEqualTo(NodeStatus.SUCCEEDED);
    }

    @Test
    void anEndBeforeTheStartWritesNoRunRecord() {
        agent.report(detail("extract", started(5_000)));

        agent.report(detail("extract", ended(4_000)));

        assertThat(agent.state(ORDER).nodes().get("extract").runs()).isEmpty();
    }

    @Test
    void endAndControlWaitNodesAreNotTimed() {
        agent.report(detail("end", started(1_000)));
        agent.report(detail("end", ended(2_000)));
        agent.report(detail("sleep", started(1_000)));
        agent.report(detail("sleep", ended(2_000)));

        OrderState state = agent.state(ORDER);
        assertThat(state.nodes().get("end").runs()).isEmpty();
        assertThat(state.nodes().get("end").startedAt()).isNull();
        assertThat(state.nodes().get("sleep").runs()).isEmpty();
        assertThat(state.nodes().get("end").status()).isEqualTo(NodeStatus.SUCCEEDED);
    }

    @Test
    void anOpenedWaitStartsTheNodeRunAtItsSince() {
        long since = agent.now() - 500;

        agent.report(approvalWait(Duration.ofDays(2).toMillis(), since));
        agent.report(detail("approve", ended(since + 10_000)));

        assertThat(agent.state(ORDER).nodes().get("approve").runs()).containsExactly(NodeRun.of(since, since + 10_000));
    }

    @Test
    void reportsAboutANodeThePinnedFlowDoesNotKnowAreStillApplied() {
        agent.report(detail("added-later", started(1_000)));
        agent.report(detail("added-later", ended(3_000)));

        assertThat(agent.state(ORDER).nodes().get("added-later").runs()).containsExactly(NodeRun.of(1_000, 3_000));
    }
}
