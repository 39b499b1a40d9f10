package io.orderflow.processor.streams;

import static io.orderflow.processor.streams.Fixtures.ORDER;
import static io.orderflow.processor.streams.Fixtures.start;
import static io.orderflow.processor.streams.Reports.INSTANCE;
import static io.orderflow.processor.streams.Reports.approvalWait;
import static io.orderflow.processor.streams.Reports.log;
import static io.orderflow.processor.streams.Reports.progress;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.orderflow.processor.metrics.OrderMeters;
import io.orderflow.processor.order.OrderApplier;
import io.orderflow.processor.order.OrderState;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.commands.RejectionKind;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.Incident;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.TimelineEntry;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Records the agent cannot process set their one order aside as an incident (or are refused), and the partition moves
 * on: the order fails with the cause as its reason, its waits close, the runner is told to end the run, and the
 * incident is listed.
 */
class IncidentsTest {

    private static final String OTHER = "ord_test2";

    private final AgentDriver agent = new AgentDriver();

    @BeforeEach
    void waitingForApproval() {
        agent.command(start(ORDER));
        agent.report(progress(1, 1, OrderStatus.WAITING));
        agent.report(approvalWait(Duration.ofDays(2).toMillis(), agent.now()));
        agent.drain();
    }

    @AfterEach
    void close() {
        agent.close();
    }

    @Test
    void aDetailReportWithoutItsNodeMakesTheOrderAnIncident() {
        agent.report(new RunReport.NodeDetail(ORDER, INSTANCE, null, null, null));

        OrderState state = agent.state(ORDER);
        assertThat(state.status()).isEqualTo(OrderStatus.FAILED);
        assertThat(state.reason()).isEqualTo("Incident: A node detail report names no node");
        assertThat(state.waits()).isEmpty();
        assertThat(state.rollback().outcome()).isEqualTo("failed");
        assertThat(state.timeline().getLast().kind()).isEqualTo("incident");
        assertThat(agent.approval(ORDER, "approve").status()).isEqualTo("cancelled");
        assertThat(agent.timers()).isEmpty();
        assertThat(agent.tasks()).singleElement().isInstanceOf(NodeTask.TerminateRun.class);
        assertThat(agent.events()).singleElement().satisfies(event -> {
            assertThat(event.event()).isEqualTo("order.failed");
            assertThat(event.data().get("reason").asString()).isEqualTo(state.reason());
        });
        assertThat(agent.<Incident>storeValues(OrderAgent.INCIDENTS)).singleElement().satisfies(incident -> {
            assertThat(incident.orderId()).isEqualTo(ORDER);
            assertThat(incident.source()).isEqualTo("order-processor run report node_detail");
            assertThat(incident.cause()).isEqualTo("A node detail report names no node");
        });
    }

    @Test
    void aWaitRequestWithoutItsRequestMakesTheOrderAnIncident() {
        agent.report(new RunReport.WaitRequested(ORDER, INSTANCE, 1, null));

        assertThat(agent.state(ORDER).reason()).isEqualTo("Incident: A wait request lacks its node or event");
    }

    @Test
    void aReportThatWouldGrowTheStatePastTheLimitMakesTheOrderAnIncidentAndIsNotStored() {
        agent.report(progress(1, 2, OrderStatus.WAITING, Map.of(), Map.of(),
                Json.object().put("blob", "x".repeat(OrderAgent.MAX_STATE_BYTES)), null));

        OrderState state = agent.state(ORDER);
        assertThat(state.status()).isEqualTo(OrderStatus.FAILED);
        assertThat(state.reason()).startsWith("Incident: The order's state would be ")
                .endsWith("bytes, over the limit of " + OrderAgent.MAX_STATE_BYTES);
        assertThat(state.vars().has("blob")).isFalse();
    }

    @Test
    void aCommandThatWouldGrowTheStatePastTheLimitIsAnsweredWithAnErrorAndChangesNothing() {
        OrderCommand.StartOrder big = start(OTHER);
        big = new OrderCommand.StartOrder(big.orderId(), big.flow(), big.input(),
                Json.object().put("blob", "x".repeat(OrderAgent.MAX_STATE_BYTES)), big.fingerprint(),
                big.idempotent(), big.source());

        var reply = agent.command(big);

        assertThat(reply.kind()).isEqualTo(RejectionKind.TOO_LARGE);
        assertThat(reply.body().get("error").asString()).endsWith("over the limit of " + OrderAgent.MAX_STATE_BYTES);
        assertThat(agent.store(OrderAgent.ORDERS).get(OTHER)).isNull();
        assertThat(agent.tasks()).isEmpty();
    }

    @Test
    void theRunnersIncidentFailsTheOrderWithoutAnotherTerminate() {
        agent.report(new RunReport.Incident(ORDER, INSTANCE, "task StartRun", "Its task could not be handled: boom"));

        assertThat(agent.state(ORDER).reason()).isEqualTo("Incident: Its task could not be handled: boom");
        assertThat(agent.tasks()).isEmpty();
        assertThat(agent.<Incident>storeValues(OrderAgent.INCIDENTS)).extracting(Incident::source)
                .containsExactly("flow-runner task StartRun");
    }

    @Test
    void aReportKeyedForAnotherOrderIsRefused() {
        agent.command(start(OTHER));
        agent.drain();
        OrderState before = agent.state(OTHER);

        agent.report(OTHER, progress(1, 5, OrderStatus.FAILED));
        agent.report(OTHER, new RunReport.NodeDetail(ORDER, INSTANCE, "approve", null,
                TimelineEntry.of(agent.now(), "node", "forged")));

        assertThat(agent.state(OTHER)).isEqualTo(before);
        assertThat(agent.state(ORDER).status()).isEqualTo(OrderStatus.WAITING);
        assertThat(agent.updates()).isEmpty();
    }

    @Test
    void aDetailLogCannotTakeTheKeyOfAStatusEntry() {
        List<TimelineEntry> before = agent.state(ORDER).timeline();
        TimelineEntry status = before.stream().filter(e -> "status:1:waiting".equals(e.key())).findFirst()
                .orElseThrow();

        agent.report(log("approve", agent.now(), "not a status", "status:1:waiting"));

        List<TimelineEntry> after = agent.state(ORDER).timeline();
        assertThat(after).contains(status).hasSize(before.size() + 1);
        assertThat(after.getLast().message()).isEqualTo("not a status");
        assertThat(after.getLast().key()).isNull();
    }

    @Test
    void incidentsAreCountedByTheServiceThatRaisedThem() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (AgentDriver counted = new AgentDriver(new OrderMeters(registry).observing(OrderApplier::applyAll))) {
            counted.command(start(ORDER));
            counted.command(start(OTHER));

            counted.report(new RunReport.NodeDetail(ORDER, INSTANCE, null, null, null));
            counted.report(new RunReport.Incident(OTHER, OTHER + ".1", "task StartRun", "boom"));

            assertThat(registry.get("orderflow.incidents").tag("source", "order-processor").counter().count())
                    .isEqualTo(1);
            assertThat(registry.get("orderflow.incidents").tag("source", "flow-runner").counter().count())
                    .isEqualTo(1);
        }
    }

    @Test
    void anIncidentOnAnEndedOrderIsListedAndLeavesItsStatus() {
        agent.command(new OrderCommand.CancelOrder(ORDER, "no longer needed"));
        agent.drain();

        agent.report(new RunReport.WaitRequested(ORDER, INSTANCE, 1, null));

        assertThat(agent.state(ORDER).status()).isEqualTo(OrderStatus.CANCELLED);
        assertThat(agent.state(ORDER).timeline().getLast().message())
                .isEqualTo("Incident: A wait request lacks its node or event");
        assertThat(agent.approval(ORDER, "approve").status()).isEqualTo("cancelled");
        assertThat(agent.events()).isEmpty();
    }
}
