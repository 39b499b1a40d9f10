package io.orderflow.processor.streams;

import io.orderflow.processor.approvals.ApprovalRow;
import io.orderflow.processor.order.OrderState;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.commands.RejectionKind;
import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderIndexRow;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static io.orderflow.processor.streams.Fixtures.ORDER;
import static io.orderflow.processor.streams.Fixtures.start;
import static io.orderflow.processor.streams.Reports.approvalWait;
import static io.orderflow.processor.streams.Reports.eventWait;
import static io.orderflow.processor.streams.Reports.progress;
import static org.assertj.core.api.Assertions.assertThat;

/** Every row of the spec's order transitions table, given / when / then. */
class OrderTransitionsTest {

    private final AgentDriver agent = new AgentDriver();

    @AfterEach
    void close() {
        agent.close();
    }

    @Test
    void startingAnOrderStoresItQueuedAndStartsTheRun() {
        // when
        CommandReply reply = agent.command(start(ORDER));

        // then
        assertThat(reply.status()).isEqualTo(201);
        assertThat(reply.body()).isEqualTo(Json.object().put("orderId", ORDER).put("version", 1));
        OrderState state = agent.state(ORDER);
        assertThat(state.status()).isEqualTo(OrderStatus.QUEUED);
        assertThat(state.generation()).isEqualTo(1);
        assertThat(state.instanceId()).isEqualTo(ORDER + ".1");
        assertThat(state.nodes()).containsOnlyKeys("extract", "approve", "pay", "sleep", "end");
        assertThat(state.nodes().values()).allMatch(n -> n.status() == NodeStatus.PENDING);
        assertThat(state.edges().values()).allMatch(e -> e == EdgeState.PENDING);
        assertThat(state.timeline()).hasSize(1);
        assertThat(state.timeline().getFirst().message())
                .isEqualTo("Started on flow Storefront order (storefront_order) version 1");
        assertThat(state.order().get("title").asString()).isEqualTo("Storefront order · cus_42");

        var tasks = agent.tasks();
        assertThat(tasks).hasSize(1);
        NodeTask.StartRun run = (NodeTask.StartRun) tasks.getFirst();
        assertThat(run.instanceId()).isEqualTo(ORDER + ".1");
        assertThat(run.flow()).isEqualTo(Fixtures.FLOW);
        assertThat(run.order().get("lines").get(0).get("sku").asString()).isEqualTo("SKU-1");
        assertThat(run.vars()).isEqualTo(Json.object().put("seed", 1));

        OrderIndexRow row = agent.indexRow(ORDER);
        assertThat(row.status()).isEqualTo(OrderStatus.QUEUED);
        assertThat(row.customerId()).isEqualTo("cus_42");
        assertThat(agent.updates()).hasSize(1);
    }

    @Test
    void repeatingAStartWithTheSameBodyIsReplayedAndADifferentBodyIsRejected() {
        // given
        agent.command(start(ORDER, "fp-1"));
        agent.drain();

        // when / then: same fingerprint
        CommandReply replayed = agent.command(start(ORDER, "fp-1"));
        assertThat(replayed.status()).isEqualTo(200);
        assertThat(replayed.body()).isEqualTo(Json.object().put("orderId", ORDER).put("replayed", true).put("version", 1));

        // when / then: other fingerprint
        CommandReply conflict = agent.command(start(ORDER, "fp-2"));
        assertThat(conflict.kind()).isEqualTo(RejectionKind.ALREADY_EXISTS);
        assertThat(conflict.body().get("error").asString())
                .isEqualTo("Idempotency-Key was already used with a different request body");
        assertThat(agent.tasks()).isEmpty();
        assertThat(agent.updates()).isEmpty();
        assertThat(agent.state(ORDER).version()).isEqualTo(1);
    }

    @Test
    void aStatusReportMovesANonTerminalOrderAndIsKeyedInTheTimeline() {
        agent.command(start(ORDER));
        agent.drain();

        agent.report(progress(1, 1, OrderStatus.RUNNING, Map.of("extract", NodeStatus.RUNNING),
                Map.of("e1", EdgeState.ACTIVE), null));

        OrderState state = agent.state(ORDER);
        assertThat(state.status()).isEqualTo(OrderStatus.RUNNING);
        assertThat(state.nodes().get("extract").status()).isEqualTo(NodeStatus.RUNNING);
        assertThat(state.edges().get("e1")).isEqualTo(EdgeState.ACTIVE);
        assertThat(state.order().get("total").decimalValue()).isEqualByComparingTo("27.00");
        assertThat(state.timeline().getLast().key()).isEqualTo("status:1:running");
        assertThat(agent.indexRow(ORDER).status()).isEqualTo(OrderStatus.RUNNING);
        assertThat(agent.updates().getLast().status()).isEqualTo(OrderStatus.RUNNING);
    }

    @Test
    void aLateReportNeverReopensATerminalOrder() {
        agent.command(start(ORDER));
        agent.report(progress(1, 1, OrderStatus.COMPLETED));

        agent.report(progress(1, 2, OrderStatus.RUNNING));

        assertThat(agent.state(ORDER).status()).isEqualTo(OrderStatus.COMPLETED);
    }

    @Test
    void cancellingAnOpenOrderTerminatesTheRunAndClearsWaits() {
        // given an order waiting on an approval and an event
        agent.command(start(ORDER));
        agent.report(progress(1, 1, OrderStatus.WAITING));
        agent.report(approvalWait(Duration.ofDays(2).toMillis(), agent.now()));
        agent.report(eventWait("payment.received", Duration.ofDays(30).toMillis(), agent.now()));
        agent.drain();

        // when
        CommandReply reply = agent.command(new OrderCommand.CancelOrder(ORDER, "Customer changed their mind"));

        // then
        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body()).isEqualTo(Json.object().put("ok", true).put("version", 5));
        OrderState state = agent.state(ORDER);
        assertThat(state.status()).isEqualTo(OrderStatus.CANCELLED);
        assertThat(state.reason()).isEqualTo("Customer changed their mind");
        assertThat(state.waits()).isEmpty();
        assertThat(agent.timers()).isEmpty();
        assertThat(agent.approval(ORDER, "approve").status()).isEqualTo("cancelled");
        assertThat(agent.tasks()).containsExactly(
                new NodeTask.TerminateRun(ORDER, ORDER + ".1", "Customer changed their mind"));
        OrderEvent event = agent.events().getFirst();
        assertThat(event.event()).isEqualTo("order.cancelled");
        assertThat(event.step()).isEqualTo("cancel");
        assertThat(event.retries()).isEqualTo(5);
        assertThat(event.data().get("outcome").asString()).isEqualTo("cancelled");
        assertThat(event.data().get("reason").asString()).isEqualTo("Customer changed their mind");
        assertThat(event.data().get("order").get("total").decimalValue()).isEqualByComparingTo("27.00");
        assertThat(event.data().get("order").has("lines")).isFalse();

        // and when the runner reports what it compensated
        agent.report(new RunReport.Compensated(ORDER, ORDER + ".1", 2, 1, 0));
        assertThat(agent.state(ORDER).timeline().getLast().message())
                .isEqualTo("Compensated: 2 held stock released, 1 authorizations voided, 0 shipments cancelled");
    }

    @Test
    void cancellingMarksEveryNodeThatHadNotFinishedSkippedAndALateReportDoesNotBringItBack() {
        // given an order whose extract node succeeded and whose approval node waits
        agent.command(start(ORDER));
        agent.report(progress(1, 1, OrderStatus.WAITING, Map.of("extract", NodeStatus.SUCCEEDED,
                "approve", NodeStatus.WAITING), Map.of(), null));
        agent.report(approvalWait(Duration.ofDays(2).toMillis(), agent.now()));
        agent.advance(Duration.ofSeconds(4));
        long cancelledAt = agent.now();

        // when it is cancelled
        agent.command(new OrderCommand.CancelOrder(ORDER, "Duplicate"));

        // then the finished node keeps its status; the waiting and pending ones will not run: skipped
        OrderState state = agent.state(ORDER);
        assertThat(state.nodes().get("extract").status()).isEqualTo(NodeStatus.SUCCEEDED);
        assertThat(state.nodes().get("approve").status()).isEqualTo(NodeStatus.SKIPPED);
        assertThat(state.nodes().get("approve").endedAt()).as("its open run ends at the cancel").isEqualTo(cancelledAt);
        assertThat(state.nodes().get("pay").status()).isEqualTo(NodeStatus.SKIPPED);
        assertThat(state.nodes().get("end").status()).isEqualTo(NodeStatus.SKIPPED);

        // and a report the run sent before it heard of the cancel leaves them skipped
        agent.report(progress(1, 2, OrderStatus.RUNNING, Map.of("pay", NodeStatus.RUNNING), Map.of(), null));
        assertThat(agent.state(ORDER).nodes().get("pay").status()).isEqualTo(NodeStatus.SKIPPED);
    }

    @Test
    void cancelWithoutReasonUsesTheDefault() {
        agent.command(start(ORDER));

        agent.command(new OrderCommand.CancelOrder(ORDER, null));

        assertThat(agent.state(ORDER).reason()).isEqualTo("Cancelled via API");
    }

    @Test
    void cancellingAnEndedOrderChangesNothing() {
        agent.command(start(ORDER));
        agent.report(progress(1, 1, OrderStatus.COMPLETED));
        agent.drain();
        long version = agent.state(ORDER).version();

        CommandReply reply = agent.command(new OrderCommand.CancelOrder(ORDER, "too late"));

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body()).isEqualTo(Json.object().put("ok", false).put("status", "completed").put("version", 2));
        assertThat(agent.state(ORDER).version()).isEqualTo(version);
        assertThat(agent.tasks()).isEmpty();
        assertThat(agent.events()).isEmpty();
    }

    @Test
    void aContinuationSwitchesInstanceAndResetsTheSequence() {
        agent.command(start(ORDER));
        agent.report(progress(1, 7, OrderStatus.RUNNING));

        agent.report(new RunReport.Continued(ORDER, ORDER + ".2", 2, ORDER + ".1"));

        OrderState state = agent.state(ORDER);
        assertThat(state.instanceId()).isEqualTo(ORDER + ".2");
        assertThat(state.generation()).isEqualTo(2);
        assertThat(state.seq()).isZero();
        assertThat(state.timeline().getLast().message()).isEqualTo("Run continued as instance " + ORDER
                + ".2 (generation 2)");
        // the new instance's first report (seq 1) is fresh again
        agent.report(progress(2, 1, OrderStatus.WAITING));
        assertThat(agent.state(ORDER).status()).isEqualTo(OrderStatus.WAITING);
    }

    @Test
    void commandsForAnUnknownOrderAreNotFound() {
        CommandReply reply = agent.command(new OrderCommand.DeliverEvent("ord_nope", "payment.received", null));

        assertThat(reply.kind()).isEqualTo(RejectionKind.NOT_FOUND);
        assertThat(reply.body()).isEqualTo(Json.object().put("error", "Order ord_nope not found"));
        assertThat(agent.command(new OrderCommand.CancelOrder("ord_nope", null)).kind())
                .isEqualTo(RejectionKind.NOT_FOUND);
        assertThat(agent.command(new OrderCommand.DecideApproval("ord_nope", "a", "approved", null, null)).status())
                .isEqualTo(404);
        assertThat(agent.state("ord_nope")).isNull();
    }

    @Test
    void approvalRowsAreKeptPerOrderAndNode() {
        agent.command(start(ORDER));
        agent.report(approvalWait(Duration.ofDays(2).toMillis(), agent.now()));

        ApprovalRow row = agent.approval(ORDER, "approve");

        assertThat(row.status()).isEqualTo("pending");
        assertThat(row.title()).isEqualTo("Approve order " + ORDER);
        assertThat(row.assignee()).isEqualTo("manager");
        assertThat(row.amount()).isEqualByComparingTo("27.00");
    }

    @Test
    void aCommandTheAgentCannotDecideIsAnswered500AndChangesNothing() {
        // given a start written to the topic by something other than the gateway, without its flow version
        OrderCommand.StartOrder broken = new OrderCommand.StartOrder("ord_broken", null,
                Json.object().put("type", "storefront_order"), null, "fp", false);

        // when the agent gets it
        CommandReply reply = agent.command(broken);

        // then the sender learns at once, and no order exists
        assertThat(reply.kind()).isEqualTo(RejectionKind.PROCESSING_ERROR);
        assertThat(reply.body().get("error").asString()).startsWith("Engine error");
        assertThat(agent.state("ord_broken")).isNull();
        assertThat(agent.tasks()).isEmpty();
    }
}
