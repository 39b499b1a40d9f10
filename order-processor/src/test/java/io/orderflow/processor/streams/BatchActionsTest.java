package io.orderflow.processor.streams;

import static io.orderflow.processor.streams.Fixtures.ORDER;
import static io.orderflow.processor.streams.Fixtures.start;
import static io.orderflow.processor.streams.Reports.INSTANCE;
import static io.orderflow.processor.streams.Reports.approvalWait;
import static io.orderflow.processor.streams.Reports.eventWait;
import static io.orderflow.processor.streams.Reports.progress;
import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.processor.order.OrderApplier;
import io.orderflow.processor.order.OrderFact;
import io.orderflow.processor.order.OrderState;
import io.orderflow.schemas.commands.BatchAction;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.commands.RejectionKind;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.Incident;
import io.orderflow.schemas.model.NodePatch;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.TimelineEntry;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One order's part of a batch, as its agent decides it: the action applies once, names the batch in the timeline and
 * is remembered, so the same batch's command sent again (a batch going on from its last checkpoint after a restart) is
 * answered as done and changes nothing; what would change nothing is refused with the reason the batch reports.
 */
class BatchActionsTest {

    private static final Caller OLGA = new Caller("person", "olga@example.com", "operator");
    private static final String BATCH = "bat_0123456789abcdef";

    /** A release with a bug in applying node details, to set the order aside as an incident. */
    private final AtomicBoolean broken = new AtomicBoolean();
    private final AgentDriver agent = new AgentDriver((before, facts, now) -> {
        if (broken.get() && facts.stream().anyMatch(OrderFact.NodePatched.class::isInstance)) {
            throw new IllegalStateException("node details cannot be applied");
        }
        return OrderApplier.applyAll(before, facts, now);
    });

    @AfterEach
    void close() {
        agent.close();
    }

    private CommandReply batch(BatchAction action) {
        return agent.command(new OrderCommand.ApplyBatchAction(ORDER, BATCH, action), OLGA);
    }

    private void waitingForApproval() {
        agent.command(start(ORDER));
        agent.report(progress(1, 1, OrderStatus.WAITING));
        agent.report(approvalWait(Duration.ofDays(2).toMillis(), agent.now()));
        agent.drain();
    }

    private List<TimelineEntry> entries(String kind) {
        return agent.state(ORDER).timeline().stream().filter(e -> e.kind().equals(kind)).toList();
    }

    @Test
    void aCancelNamesTheBatchAndASecondSendChangesNothing() {
        waitingForApproval();

        CommandReply first = batch(new BatchAction.Cancel("Duplicate import"));

        assertThat(first.status()).isEqualTo(200);
        assertThat(first.body().get("ok").asBoolean()).isTrue();
        OrderState cancelled = agent.state(ORDER);
        assertThat(cancelled.status()).isEqualTo(OrderStatus.CANCELLED);
        assertThat(cancelled.reason()).isEqualTo("Duplicate import");
        assertThat(entries("cancel")).singleElement().satisfies(entry -> {
            assertThat(entry.message()).isEqualTo("Cancelled by batch " + BATCH + ": Duplicate import");
            assertThat(entry.data().get("batchId").asString()).isEqualTo(BATCH);
            assertThat(entry.data().get("by").asString()).isEqualTo("olga@example.com");
        });
        assertThat(agent.tasks()).containsExactly(new NodeTask.TerminateRun(ORDER, INSTANCE, "Duplicate import"));
        assertThat(agent.events()).extracting(e -> e.event()).containsExactly("order.cancelled");
        assertThat(agent.approval(ORDER, "approve").status()).isEqualTo("cancelled");
        agent.drain();

        CommandReply again = batch(new BatchAction.Cancel("Duplicate import"));

        assertThat(again.status()).isEqualTo(200);
        assertThat(again.body().get("replayed").asBoolean()).isTrue();
        assertThat(agent.state(ORDER).version()).isEqualTo(cancelled.version());
        assertThat(entries("cancel")).hasSize(1);
        assertThat(agent.tasks()).isEmpty();
        assertThat(agent.events()).isEmpty();
        assertThat(agent.updates()).isEmpty();
    }

    @Test
    void anotherBatchsCancelOfAnEndedOrderIsRefusedWithTheReason() {
        waitingForApproval();
        batch(new BatchAction.Cancel("Duplicate import"));
        agent.drain();
        long version = agent.state(ORDER).version();

        CommandReply other = agent.command(new OrderCommand.ApplyBatchAction(ORDER, "bat_other",
                new BatchAction.Cancel("Again")), OLGA);

        assertThat(other.kind()).isEqualTo(RejectionKind.INVALID_STATE);
        assertThat(other.body().get("error").asString()).isEqualTo("Order " + ORDER + " has already ended: cancelled");
        assertThat(agent.state(ORDER).version()).isEqualTo(version);
    }

    @Test
    void anApprovalDecidedByABatchSaysWhoAndWhichBatch() {
        waitingForApproval();

        CommandReply reply = batch(new BatchAction.DecideApproval("approve", "approved", "olga@example.com",
                "budgeted"));

        assertThat(reply.status()).isEqualTo(200);
        assertThat(entries("close:approval")).singleElement().satisfies(entry -> {
            assertThat(entry.message()).isEqualTo("Approve order " + ORDER
                    + ": approved by olga@example.com, note: budgeted (batch " + BATCH + ")");
            assertThat(entry.data().get("batchId").asString()).isEqualTo(BATCH);
        });
        assertThat(agent.approval(ORDER, "approve").decidedBy()).isEqualTo("olga@example.com");
        assertThat(agent.tasks()).singleElement().isInstanceOf(NodeTask.ResumeNode.class);

        assertThat(batch(new BatchAction.DecideApproval("approve", "rejected", "olga@example.com", null))
                .body().get("replayed").asBoolean()).isTrue();
        CommandReply otherBatch = agent.command(new OrderCommand.ApplyBatchAction(ORDER, "bat_other",
                new BatchAction.DecideApproval("approve", "rejected", "olga@example.com", null)), OLGA);
        assertThat(otherBatch.kind()).isEqualTo(RejectionKind.INVALID_STATE);
        assertThat(otherBatch.body().get("error").asString()).isEqualTo("That node is not waiting for an approval.");
    }

    @Test
    void anEventDeliveredByABatchReachesTheRunOnceWithThePayloadAsSent() {
        agent.command(start(ORDER));
        agent.report(progress(1, 1, OrderStatus.WAITING));
        CommandReply none = batch(new BatchAction.DeliverEvent("payment.received", Json.object()));
        assertThat(none.kind()).isEqualTo(RejectionKind.INVALID_STATE);
        assertThat(none.body().get("error").asString())
                .isEqualTo("No node of order " + ORDER + " is waiting for payment.received");
        agent.report(eventWait("payment.received", Duration.ofDays(2).toMillis(), agent.now()));
        agent.drain();

        CommandReply reply = batch(new BatchAction.DeliverEvent("payment.received",
                Json.object().put("source", "batch")));

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body().get("delivered").asBoolean()).isTrue();
        assertThat(agent.state(ORDER).vars().get("payment_received").get("source").asString()).isEqualTo("batch");
        assertThat(agent.state(ORDER).vars().get("payment_received").has("batchId")).isFalse();
        assertThat(entries("close:payment.received")).singleElement().satisfies(entry ->
                assertThat(entry.message()).isEqualTo("Wait for payment.received: received (batch " + BATCH + ")"));
        assertThat(agent.tasks()).hasSize(1);

        assertThat(batch(new BatchAction.DeliverEvent("payment.received", Json.object())).body()
                .get("replayed").asBoolean()).isTrue();
        assertThat(agent.tasks()).isEmpty();
    }

    @Test
    void aBatchRetriesTheOrdersOpenIncidentOnce() {
        waitingForApproval();
        CommandReply nothing = batch(new BatchAction.RetryIncident());
        assertThat(nothing.kind()).isEqualTo(RejectionKind.INVALID_STATE);
        assertThat(nothing.body().get("error").asString()).isEqualTo("Order " + ORDER + " has no open incident");

        broken.set(true);
        agent.report(new RunReport.NodeDetail(ORDER, INSTANCE, "approve",
                new NodePatch(NodeStatus.WAITING, null, null, null, null, null, null), null));
        assertThat(agent.state(ORDER).status()).isEqualTo(OrderStatus.FAILED);
        broken.set(false);
        agent.drain();

        CommandReply retried = batch(new BatchAction.RetryIncident());

        assertThat(retried.status()).isEqualTo(200);
        assertThat(retried.body().get("status").asString()).isEqualTo(Incident.RESOLVED);
        assertThat(agent.state(ORDER).status()).isEqualTo(OrderStatus.WAITING);
        assertThat(entries("incident")).last().satisfies(entry -> {
            assertThat(entry.message()).isEqualTo("Incident retried by batch " + BATCH);
            assertThat(entry.data().get("by").asString()).isEqualTo("olga@example.com");
        });
        List<Incident> incidents = agent.storeValues(OrderAgent.INCIDENTS);
        assertThat(incidents).singleElement().satisfies(incident -> assertThat(incident.history().getLast())
                .isEqualTo(new Incident.Step(agent.now(), "retried", "olga@example.com", null, "batch " + BATCH)));
        long version = agent.state(ORDER).version();

        assertThat(batch(new BatchAction.RetryIncident()).body().get("replayed").asBoolean()).isTrue();
        assertThat(agent.state(ORDER).version()).isEqualTo(version);
    }

    @Test
    void anOrderRemembersTheLatestBatchesOnly() {
        waitingForApproval();
        OrderState state = agent.state(ORDER);
        for (int i = 0; i < OrderState.BATCHES_KEPT + 5; i++) {
            state = state.withBatch("bat_" + i);
        }
        assertThat(state.batches()).hasSize(OrderState.BATCHES_KEPT).first().isEqualTo("bat_5");
        assertThat(state.withBatch("bat_10").batches()).last().isEqualTo("bat_10");
    }

    @Test
    void aBatchForAnUnknownOrderIsNotFound() {
        CommandReply reply = agent.command(new OrderCommand.ApplyBatchAction("ord_nobody", BATCH,
                new BatchAction.Cancel("x")), OLGA);
        assertThat(reply.kind()).isEqualTo(RejectionKind.NOT_FOUND);
        CommandReply retry = agent.command(new OrderCommand.ApplyBatchAction("ord_nobody", BATCH,
                new BatchAction.RetryIncident()), OLGA);
        assertThat(retry.kind()).isEqualTo(RejectionKind.NOT_FOUND);
    }
}
