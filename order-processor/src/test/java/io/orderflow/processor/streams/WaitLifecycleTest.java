package io.orderflow.processor.streams;

import io.orderflow.processor.approvals.ApprovalRow;
import io.orderflow.processor.order.AgentSettings;
import io.orderflow.processor.order.OrderState;
import io.orderflow.processor.order.Wait;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.commands.RejectionKind;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.TimelineEntry;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.tasks.NodeTask;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

import java.time.Duration;

import static io.orderflow.processor.streams.Fixtures.ORDER;
import static io.orderflow.processor.streams.Fixtures.start;
import static io.orderflow.processor.streams.Reports.INSTANCE;
import static io.orderflow.processor.streams.Reports.approvalWait;
import static io.orderflow.processor.streams.Reports.eventWait;
import static io.orderflow.processor.streams.Reports.progress;
import static org.assertj.core.api.Assertions.assertThat;

/** Wait lifecycle: open, close by event, decision or deadline, and the race between them. */
class WaitLifecycleTest {

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
    void openingAnApprovalWaitInsertsThePendingRowAndTheScaledDeadline() {
        long since = agent.now();

        agent.report(approvalWait(TWO_DAYS, since));

        OrderState state = agent.state(ORDER);
        Wait wait = state.waits().getFirst();
        assertThat(wait.kind()).isEqualTo("approval");
        assertThat(wait.deadline()).isEqualTo(since + 120_000); // two days / 1440 = two minutes
        assertThat(wait.since()).isEqualTo(since);
        assertThat(state.timeline().getLast().kind()).isEqualTo("open:approval");
        assertThat(agent.approval(ORDER, "approve").status()).isEqualTo(ApprovalRow.PENDING);
        assertThat(agent.timers()).hasSize(1);
        assertThat(agent.indexRow(ORDER).waitingOn()).isEqualTo("Approve order " + ORDER);
    }

    @Test
    void openingASecondWaitForTheSameEventTypeIsANoOp() {
        agent.report(eventWait("payment.received", THIRTY_DAYS, agent.now()));
        long version = agent.state(ORDER).version();

        agent.report(eventWait("payment.received", THIRTY_DAYS, agent.now() + 5));

        assertThat(agent.state(ORDER).waits()).hasSize(1);
        assertThat(agent.state(ORDER).version()).isEqualTo(version);
    }

    @Test
    void waitingOnJoinsOpenWaitTitles() {
        agent.report(approvalWait(TWO_DAYS, agent.now()));
        agent.report(eventWait("payment.received", THIRTY_DAYS, agent.now()));

        assertThat(agent.indexRow(ORDER).waitingOn())
                .isEqualTo("Approve order " + ORDER + " · Wait for payment.received");
    }

    @Test
    void aDeliveredEventClosesTheWaitStoresThePayloadAndResumesTheNode() {
        agent.report(eventWait("payment.received", THIRTY_DAYS, agent.now()));
        agent.drain();

        CommandReply reply = agent.command(new OrderCommand.DeliverEvent(ORDER, "payment.received",
                Json.object().put("source", "dashboard").put("amount", 27)));

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body()).isEqualTo(Json.object().put("delivered", true).put("nodeId", "pay").put("version", 4));
        OrderState state = agent.state(ORDER);
        ObjectNode expected = Json.object().put("source", "dashboard").put("amount", 27)
                .put("event", "payment.received").put("at", agent.now());
        assertThat(state.vars().get("payment_received")).isEqualTo(expected);
        assertThat(state.waits()).isEmpty();
        assertThat(state.timeline().getLast().kind()).isEqualTo("close:payment.received");
        assertThat(agent.timers()).isEmpty();
        assertThat(agent.tasks()).containsExactly(new NodeTask.ResumeNode(ORDER, INSTANCE, "pay", "received", expected));
    }

    @Test
    void eachRunOfNonAlphanumericsBecomesOneUnderscore() {
        agent.report(eventWait("return..requested--now", THIRTY_DAYS, agent.now()));

        agent.command(new OrderCommand.DeliverEvent(ORDER, "return..requested--now", null));

        assertThat(agent.state(ORDER).vars().has("return_requested_now")).isTrue();
    }

    @Test
    void anEventNobodyWaitsForIsNotDeliveredAndChangesNothing() {
        long version = agent.state(ORDER).version();

        CommandReply reply = agent.command(new OrderCommand.DeliverEvent(ORDER, "payment.received", Json.object()));

        assertThat(reply.body()).isEqualTo(Json.object().put("delivered", false).put("version", 2));
        assertThat(agent.state(ORDER).version()).isEqualTo(version);
        assertThat(agent.tasks()).isEmpty();

        // delivering again once a node waits works
        agent.report(eventWait("payment.received", THIRTY_DAYS, agent.now()));
        assertThat(agent.command(new OrderCommand.DeliverEvent(ORDER, "payment.received", null)).body().get("delivered")
                .asBoolean()).isTrue();
    }

    @Test
    void aDecisionClosesTheApprovalAndResumesOnItsBranch() {
        agent.report(approvalWait(TWO_DAYS, agent.now()));
        agent.drain();

        CommandReply reply = agent.command(new OrderCommand.DecideApproval(ORDER, "approve", "rejected",
                "token:ci", "Too expensive"));

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body()).isEqualTo(Json.object().put("ok", true).put("version", 4));
        ApprovalRow row = agent.approval(ORDER, "approve");
        assertThat(row.status()).isEqualTo("rejected");
        assertThat(row.decidedBy()).isEqualTo("token:ci");
        assertThat(row.note()).isEqualTo("Too expensive");
        assertThat(row.decidedAt()).isEqualTo(agent.now());
        ObjectNode payload = Json.object().put("decision", "rejected").put("by", "token:ci")
                .put("note", "Too expensive").put("outcome", "rejected");
        assertThat(agent.tasks()).containsExactly(new NodeTask.ResumeNode(ORDER, INSTANCE, "approve", "rejected", payload));
        assertThat(agent.state(ORDER).timeline().getLast().kind()).isEqualTo("close:approval");
    }

    @Test
    void aDecisionWithoutDeciderIsRecordedAsApi() {
        agent.report(approvalWait(TWO_DAYS, agent.now()));

        agent.command(new OrderCommand.DecideApproval(ORDER, "approve", "approved", null, null));

        assertThat(agent.approval(ORDER, "approve").decidedBy()).isEqualTo("api");
        assertThat(agent.approval(ORDER, "approve").status()).isEqualTo("approved");
    }

    @Test
    void decidingANodeThatIsNotWaitingForAnApprovalIsRejected() {
        agent.report(eventWait("payment.received", THIRTY_DAYS, agent.now()));

        CommandReply onEventWait = agent.command(new OrderCommand.DecideApproval(ORDER, "pay", "approved", null, null));
        CommandReply onNothing = agent.command(new OrderCommand.DecideApproval(ORDER, "approve", "approved", null, null));

        for (CommandReply reply : new CommandReply[]{onEventWait, onNothing}) {
            assertThat(reply.kind()).isEqualTo(RejectionKind.INVALID_STATE);
            assertThat(reply.body()).isEqualTo(Json.object().put("error", "That node is not waiting for an approval."));
        }
        assertThat(agent.state(ORDER).waits()).hasSize(1);
    }

    @Test
    void anApprovalNobodyDecidesEscalatesAtTheScaledDeadline() {
        agent.report(approvalWait(TWO_DAYS, agent.now()));
        agent.drain();

        agent.advance(Duration.ofSeconds(119));
        assertThat(agent.state(ORDER).waits()).hasSize(1);

        agent.advance(Duration.ofSeconds(1));

        assertThat(agent.state(ORDER).waits()).isEmpty();
        ApprovalRow row = agent.approval(ORDER, "approve");
        assertThat(row.status()).isEqualTo("escalated");
        assertThat(row.decidedBy()).isEqualTo("timeout");
        NodeTask.ResumeNode resume = (NodeTask.ResumeNode) agent.tasks().getFirst();
        assertThat(resume.branch()).isEqualTo("escalated");
        assertThat(resume.payload()).isEqualTo(Json.MAPPER.readTree(
                "{\"decision\": null, \"by\": \"timeout\", \"note\": null, \"outcome\": \"escalated\"}"));
    }

    @Test
    void anEventWaitTimesOutOnItsTimeoutBranch() {
        agent.report(eventWait("payment.received", THIRTY_DAYS, agent.now()));
        agent.drain();

        agent.advance(Duration.ofMinutes(30));

        assertThat(agent.state(ORDER).waits()).isEmpty();
        NodeTask.ResumeNode resume = (NodeTask.ResumeNode) agent.tasks().getFirst();
        assertThat(resume.branch()).isEqualTo("timeout");
        assertThat(agent.state(ORDER).vars().has("payment_received")).isFalse();
    }

    @Test
    void aScaledTimeoutIsNeverBelowOneSecond() {
        long since = agent.now();

        agent.report(eventWait("payment.received", 10, since));

        assertThat(agent.state(ORDER).waits().getFirst().deadline()).isEqualTo(since + 1_000);
    }

    @Test
    void timeScaleOneIsRealTime() {
        try (AgentDriver realTime = new AgentDriver(new AgentSettings(1, 5))) {
            realTime.command(start(ORDER));
            long since = realTime.now();

            realTime.report(approvalWait(TWO_DAYS, since));

            assertThat(realTime.state(ORDER).waits().getFirst().deadline()).isEqualTo(since + TWO_DAYS);
        }
    }

    @Test
    void raceDecisionFirst_theDeadlineAndAnEventFindNoWait() {
        agent.report(approvalWait(TWO_DAYS, agent.now()));
        agent.drain();

        agent.command(new OrderCommand.DecideApproval(ORDER, "approve", "approved", "amy", null));
        agent.advance(Duration.ofMinutes(5));
        CommandReply second = agent.command(new OrderCommand.DecideApproval(ORDER, "approve", "rejected", "bob", null));

        assertThat(second.kind()).isEqualTo(RejectionKind.INVALID_STATE);
        assertThat(agent.approval(ORDER, "approve").status()).isEqualTo("approved");
        assertThat(agent.tasks()).extracting(t -> ((NodeTask.ResumeNode) t).branch()).containsExactly("approved");
    }

    @Test
    void raceDeadlineFirst_aLateDecisionIsRejected() {
        agent.report(approvalWait(TWO_DAYS, agent.now()));
        agent.drain();

        agent.advance(Duration.ofMinutes(2));
        CommandReply late = agent.command(new OrderCommand.DecideApproval(ORDER, "approve", "approved", "amy", null));

        assertThat(late.kind()).isEqualTo(RejectionKind.INVALID_STATE);
        assertThat(agent.approval(ORDER, "approve").status()).isEqualTo("escalated");
        assertThat(agent.tasks()).extracting(t -> ((NodeTask.ResumeNode) t).branch()).containsExactly("escalated");
    }

    @Test
    void raceEventFirst_theDeadlineFindsNoWaitAndASecondEventIsNotDelivered() {
        agent.report(eventWait("payment.received", THIRTY_DAYS, agent.now()));
        agent.drain();

        agent.command(new OrderCommand.DeliverEvent(ORDER, "payment.received", null));
        CommandReply again = agent.command(new OrderCommand.DeliverEvent(ORDER, "payment.received", null));
        agent.advance(Duration.ofHours(1));

        assertThat(again.body()).isEqualTo(Json.object().put("delivered", false).put("version", 4));
        assertThat(agent.tasks()).extracting(t -> ((NodeTask.ResumeNode) t).branch()).containsExactly("received");
    }

    @Test
    void raceDeadlineFirst_aLateEventIsNotDeliveredAndTheCloseIsLogged() {
        agent.report(eventWait("payment.received", THIRTY_DAYS, agent.now()));
        agent.drain();

        agent.advance(Duration.ofMinutes(30));
        CommandReply late = agent.command(new OrderCommand.DeliverEvent(ORDER, "payment.received", null));

        assertThat(late.body()).isEqualTo(Json.object().put("delivered", false).put("version", 4));
        assertThat(agent.state(ORDER).vars().has("payment_received")).as("nothing else happens").isFalse();
        assertThat(agent.tasks()).extracting(t -> ((NodeTask.ResumeNode) t).branch()).containsExactly("timeout");
        assertThat(agent.state(ORDER).timeline()).extracting(TimelineEntry::kind).contains("close:payment.received");
    }

    @Test
    void aSweepHandlesAtMostItsBudgetAndLeavesTheRestForTheNextSweep() {
        try (AgentDriver budgeted = new AgentDriver(AgentSettings.DEFAULTS, 2)) {
            for (String id : java.util.List.of("ord_a", "ord_b", "ord_c")) {
                budgeted.command(start(id));
                budgeted.report(new io.orderflow.schemas.reports.RunReport.WaitRequested(id, id + ".1", 1,
                        new io.orderflow.schemas.model.WaitRequest("pay", "event", "Wait for payment", "payment.received",
                                null, null, 1_000, budgeted.now())));
            }
            budgeted.drain();

            budgeted.advance(Duration.ofSeconds(1));
            assertThat(budgeted.tasks()).hasSize(2);

            budgeted.advance(Duration.ofSeconds(1));
            assertThat(budgeted.tasks()).hasSize(1);
            assertThat(budgeted.timers()).isEmpty();
        }
    }
}
