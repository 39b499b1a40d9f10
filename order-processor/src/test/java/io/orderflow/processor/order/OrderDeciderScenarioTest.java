package io.orderflow.processor.order;

import io.orderflow.processor.timers.Due;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.commands.RejectionKind;
import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.Rollback;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

import static io.orderflow.processor.order.DeciderScenario.INSTANCE;
import static io.orderflow.processor.order.DeciderScenario.ORDER;
import static io.orderflow.processor.order.DeciderScenario.given;
import static io.orderflow.processor.order.DeciderScenario.json;
import static io.orderflow.processor.order.DeciderScenario.rejected;
import static io.orderflow.processor.order.DeciderScenario.reply;
import static org.assertj.core.api.Assertions.assertThat;

/** Cancel, deliver, deadline and poll decided by the decider alone: given facts, when a message, then what follows. */
class OrderDeciderScenarioTest {

    private static final long NOW = 50_000;
    private static final Wait APPROVAL = new Wait("approve", Wait.APPROVAL, "Approve order ord_1", "approval",
            "manager", new BigDecimal("120.00"), 121_000, 1_000);
    private static final Wait PAYMENT = new Wait("pay", Wait.EVENT, "Await payment", "payment.received", null, null,
            1_801_000, 1_000);

    private static OrderFact.ProgressApplied status(long seq, OrderStatus status) {
        return new OrderFact.ProgressApplied(new RunReport.Progress(ORDER, INSTANCE, 1, seq, status, null, null, null,
                null, null, 2_000), 2_000);
    }

    // ---- cancel -------------------------------------------------------------------------------------------------

    @Test
    void givenAnOrderWaitingForApproval_whenCancelled_thenTheApprovalIsCancelledTheRunTerminatedAndTheEventSent() {
        given(status(1, OrderStatus.WAITING), new OrderFact.WaitOpened(APPROVAL, 1_000))
                .when(new OrderCommand.CancelOrder(ORDER, "Budget frozen"), NOW)
                .then(List.of(new OrderFact.OrderCancelled("Budget frozen", "api", NOW)),
                        List.of(new Effect.CloseApproval("approve", "cancelled", NOW, null, null),
                                new Effect.ClearDeadline(121_000, "approve"),
                                new Effect.SendTask(new NodeTask.TerminateRun(ORDER, INSTANCE, "Budget frozen")),
                                new Effect.PublishEvent(new OrderEvent("order.cancelled", ORDER, "cancel", NOW, json("""
                                        {"order":{"id":"ord_1","type":"b2b_order","title":"B2B order · cus_1",
                                                  "customerId":"cus_1","currency":"USD"},
                                         "outcome":"cancelled","reason":"Budget frozen"}"""), 5))),
                        reply(200, "{\"ok\":true}"));
    }

    @Test
    void givenACancelWithoutReason_whenCancelled_thenTheDefaultReasonIsUsed() {
        given(status(1, OrderStatus.RUNNING))
                .when(new OrderCommand.CancelOrder(ORDER, null), NOW)
                .then(List.of(new OrderFact.OrderCancelled(OrderCommand.CancelOrder.DEFAULT_REASON, "api", NOW)),
                        List.of(new Effect.SendTask(new NodeTask.TerminateRun(ORDER, INSTANCE, "Cancelled via API")),
                                new Effect.PublishEvent(new OrderEvent("order.cancelled", ORDER, "cancel", NOW, json("""
                                        {"order":{"id":"ord_1","type":"b2b_order","title":"B2B order · cus_1",
                                                  "customerId":"cus_1","currency":"USD"},
                                         "outcome":"cancelled","reason":"Cancelled via API"}"""), 5))),
                        reply(200, "{\"ok\":true}"));
    }

    @Test
    void givenACompletedOrder_whenCancelled_thenNothingChanges() {
        given(status(1, OrderStatus.COMPLETED))
                .when(new OrderCommand.CancelOrder(ORDER, "too late"), NOW)
                .then(List.of(), List.of(), reply(200, "{\"ok\":false,\"status\":\"completed\"}"));
    }

    // ---- If-Match: a change based on a read of the order's version ----------------------------------------------

    @Test
    void givenAnOrderAtVersion1_whenCancelledExpectingVersion1_thenItIsCancelledAsWithoutExpectation() {
        given(status(1, OrderStatus.RUNNING))
                .when(new OrderCommand.CancelOrder(ORDER, "Budget frozen", 1L), NOW)
                .then(List.of(new OrderFact.OrderCancelled("Budget frozen", "api", NOW)),
                        List.of(new Effect.SendTask(new NodeTask.TerminateRun(ORDER, INSTANCE, "Budget frozen")),
                                new Effect.PublishEvent(new OrderEvent("order.cancelled", ORDER, "cancel", NOW, json("""
                                        {"order":{"id":"ord_1","type":"b2b_order","title":"B2B order · cus_1",
                                                  "customerId":"cus_1","currency":"USD"},
                                         "outcome":"cancelled","reason":"Budget frozen"}"""), 5))),
                        reply(200, "{\"ok\":true}"));
    }

    @Test
    void givenAnOrderThatChangedSinceItWasRead_whenCancelledExpectingTheOldVersion_thenItIsRefused412() {
        given(status(1, OrderStatus.RUNNING))
                .when(new OrderCommand.CancelOrder(ORDER, "Budget frozen", 0L), NOW)
                .then(List.of(), List.of(), rejected(RejectionKind.PRECONDITION_FAILED,
                        "Order ord_1 is at version 1, not 0: it changed since it was read; read it again and retry"));
    }

    @Test
    void givenAnApprovalOnAStaleRead_whenDecided_thenItIsRefused412AndTheApprovalStaysOpen() {
        given(status(1, OrderStatus.WAITING), new OrderFact.WaitOpened(APPROVAL, 1_000))
                .when(new OrderCommand.DecideApproval(ORDER, "approve", "approved", "ann", null, 3L), NOW)
                .then(List.of(), List.of(), rejected(RejectionKind.PRECONDITION_FAILED,
                        "Order ord_1 is at version 1, not 3: it changed since it was read; read it again and retry"));
    }

    @Test
    void givenAnApprovalOnACurrentRead_whenDecided_thenTheWaitCloses() {
        var scenario = given(status(1, OrderStatus.WAITING), new OrderFact.WaitOpened(APPROVAL, 1_000))
                .when(new OrderCommand.DecideApproval(ORDER, "approve", "approved", "ann", null, 1L), NOW);
        scenario.thenReplied(reply(200, "{\"ok\":true}"));
    }

    @Test
    void givenAStaleExpectedVersion_whenTheNodeIsNotWaitingEither_thenTheStaleReadIsWhatIsReported() {
        given(status(1, OrderStatus.RUNNING))
                .when(new OrderCommand.DecideApproval(ORDER, "approve", "approved", "ann", null, 9L), NOW)
                .then(List.of(), List.of(), rejected(RejectionKind.PRECONDITION_FAILED,
                        "Order ord_1 is at version 1, not 9: it changed since it was read; read it again and retry"));
    }

    @Test
    void givenAnOrder_whenACommandChangesIt_thenItsVersionRisesByOne_andARefusedOneLeavesItAsItWas() {
        var approved = given(status(1, OrderStatus.WAITING), new OrderFact.WaitOpened(APPROVAL, 1_000))
                .when(new OrderCommand.DecideApproval(ORDER, "approve", "approved", "ann", null, 1L), NOW);
        assertThat(approved.state().version()).isEqualTo(1);
        OrderState after = approved.applied(NOW);
        assertThat(after.version()).isEqualTo(2);
        assertThat(after.updatedAt()).isEqualTo(NOW);

        var refused = given(status(1, OrderStatus.WAITING), new OrderFact.WaitOpened(APPROVAL, 1_000))
                .when(new OrderCommand.CancelOrder(ORDER, null, 2L), NOW);
        assertThat(refused.applied(NOW)).isSameAs(refused.state());
    }

    @Test
    void aSuccessfulReplyCarriesTheVersionTheCommandLeft_aRefusalKeepsTheErrorShape() {
        // compared as text: a parsed 4 is an int node, the one added a long node
        assertThat(reply(200, "{\"ok\":true}").withVersion(4).body()).hasToString("{\"ok\":true,\"version\":4}");
        assertThat(rejected(RejectionKind.PRECONDITION_FAILED, "stale").withVersion(4))
                .isEqualTo(rejected(RejectionKind.PRECONDITION_FAILED, "stale"));
        assertThat(reply(200, "{\"version\":9}").withVersion(4)).isEqualTo(reply(200, "{\"version\":9}"));
        assertThat(new Decision.Reply(200, null).withVersion(4)).isEqualTo(new Decision.Reply(200, null));
    }

    // ---- deliver ------------------------------------------------------------------------------------------------

    @Test
    void givenAnOrderWaitingForPayment_whenThePaymentIsDelivered_thenTheWaitClosesIntoVarsAndTheNodeResumes() {
        // the agent adds event and at (epoch milliseconds, a long) to the payload
        var payload = ((ObjectNode) json("{\"reference\":\"TX-991\",\"event\":\"payment.received\"}"))
                .put("at", NOW);
        given(new OrderFact.WaitOpened(PAYMENT, 1_000))
                .when(new OrderCommand.DeliverEvent(ORDER, "payment.received", json("{\"reference\":\"TX-991\"}")),
                        NOW)
                .then(List.of(new OrderFact.WaitClosed("pay", "received", "payment_received", payload, NOW)),
                        List.of(new Effect.ClearDeadline(1_801_000, "pay"),
                                new Effect.SendTask(new NodeTask.ResumeNode(ORDER, INSTANCE, "pay", "received",
                                        payload))),
                        reply(200, "{\"delivered\":true,\"nodeId\":\"pay\"}"));
    }

    @Test
    void givenNoNodeWaitsForTheEvent_whenDelivered_thenItIsNotDeliveredAndNothingChanges() {
        given(new OrderFact.WaitOpened(APPROVAL, 1_000))
                .when(new OrderCommand.DeliverEvent(ORDER, "payment.received", null), NOW)
                .then(List.of(), List.of(), reply(200, "{\"delivered\":false}"));
    }

    // ---- deadline -----------------------------------------------------------------------------------------------

    @Test
    void givenAnApprovalNobodyDecided_whenItsDeadlineIsDue_thenItEscalatesDecidedByTheTimeout() {
        var payload = json("{\"decision\":null,\"by\":\"timeout\",\"note\":null,\"outcome\":\"escalated\"}");
        given(new OrderFact.WaitOpened(APPROVAL, 1_000))
                .when(Due.deadline(ORDER, "approve", 121_000), 121_500)
                .then(List.of(new OrderFact.WaitClosed("approve", "escalated", null, payload, 121_500)),
                        List.of(new Effect.CloseApproval("approve", "escalated", 121_500, "timeout", null),
                                new Effect.SendTask(new NodeTask.ResumeNode(ORDER, INSTANCE, "approve", "escalated",
                                        payload))),
                        null);
    }

    @Test
    void givenAnEventWait_whenItsDeadlineIsDue_thenItTakesTheTimeoutBranch() {
        var payload = ((ObjectNode) json("{\"event\":\"payment.received\"}")).put("at", 1_801_200L)
                .put("timeout", true);
        given(new OrderFact.WaitOpened(PAYMENT, 1_000))
                .when(Due.deadline(ORDER, "pay", 1_801_000), 1_801_200)
                .then(List.of(new OrderFact.WaitClosed("pay", "timeout", null, payload, 1_801_200)),
                        List.of(new Effect.SendTask(new NodeTask.ResumeNode(ORDER, INSTANCE, "pay", "timeout",
                                payload))),
                        null);
    }

    @Test
    void givenTheWaitAlreadyClosed_whenAStaleDeadlineIsDue_thenNothingHappens() {
        given(new OrderFact.WaitOpened(PAYMENT, 1_000),
                new OrderFact.WaitClosed("pay", "received", "payment_received", json("{}"), 5_000))
                .when(Due.deadline(ORDER, "pay", 1_801_000), 1_801_200)
                .thenNothing();
    }

    // ---- rollback poll ------------------------------------------------------------------------------------------

    @Test
    void givenAFailedRun_whenThePollIsDue_thenTheInstanceIsAskedAndTheNextPollScheduled() {
        given(status(1, OrderStatus.FAILED), new OrderFact.RollbackPolled(1))
                .when(Due.poll(ORDER, 2, NOW), NOW)
                .then(List.of(new OrderFact.RollbackPolled(2)),
                        List.of(new Effect.SendTask(new NodeTask.QueryInstance(ORDER, INSTANCE, 2)),
                                new Effect.SchedulePoll(NOW + AgentSettings.POLL_INTERVAL_MS, 3)),
                        null);
    }

    @Test
    void givenSixtyPollsWithoutASettledRun_whenTheNextIsDue_thenTheRollbackIsGivenUp() {
        given(status(1, OrderStatus.FAILED), new OrderFact.RollbackPolled(AgentSettings.MAX_POLLS))
                .when(Due.poll(ORDER, AgentSettings.MAX_POLLS + 1, NOW), NOW)
                .then(List.of(new OrderFact.RollbackSettled(new Rollback("failed", OrderDecider.NOT_SETTLED), NOW)),
                        List.of(), null);
    }

    @Test
    void givenASettledRollback_whenAPollIsDue_thenNothingHappens() {
        given(status(1, OrderStatus.FAILED), new OrderFact.RollbackSettled(new Rollback("complete", null), 3_000))
                .when(Due.poll(ORDER, 2, NOW), NOW)
                .thenNothing();
    }

    @Test
    void givenAFailedReport_whenItArrives_thenTheFirstPollGoesOutAtOnce() {
        var failed = new RunReport.Progress(ORDER, INSTANCE, 1, 2, OrderStatus.FAILED, "Ship failed", Map.of(),
                Map.of(), null, null, 4_000);
        given(status(1, OrderStatus.RUNNING))
                .when(failed, NOW)
                .then(List.of(new OrderFact.ProgressApplied(failed, 4_000), new OrderFact.RollbackPolled(1)),
                        List.of(new Effect.SendTask(new NodeTask.QueryInstance(ORDER, INSTANCE, 1)),
                                new Effect.SchedulePoll(NOW + AgentSettings.POLL_INTERVAL_MS, 2)),
                        null);
    }
}
