package io.orderflow.processor.streams;

import io.orderflow.processor.order.OrderState;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.commands.RejectionKind;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.TimelineEntry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

import java.time.Duration;

import static io.orderflow.processor.streams.Fixtures.ORDER;
import static io.orderflow.processor.streams.Fixtures.start;
import static io.orderflow.processor.streams.Reports.approvalWait;
import static io.orderflow.processor.streams.Reports.eventWait;
import static io.orderflow.processor.streams.Reports.progress;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The audit trail in the order's timeline: who decided an approval and their note, who cancelled and why, and the
 * payment reference a person entered with a payment event (checked before it is taken).
 */
class AuditTimelineTest {

    private static final long TWO_DAYS = Duration.ofDays(2).toMillis();
    private static final long THIRTY_DAYS = Duration.ofDays(30).toMillis();
    private static final Caller ANN = new Caller("person", "ann@example.com", "operator");

    private final AgentDriver agent = new AgentDriver();

    @BeforeEach
    void givenAWaitingOrder() {
        agent.command(start(ORDER)); // a USD order of 27.00
        agent.report(progress(1, 1, OrderStatus.WAITING));
        agent.drain();
    }

    @AfterEach
    void close() {
        agent.close();
    }

    private TimelineEntry last() {
        return agent.state(ORDER).timeline().getLast();
    }

    @Test
    void anApprovalsCloseEntryNamesTheDeciderAndTheirNote() {
        agent.report(approvalWait(TWO_DAYS, agent.now()));

        agent.command(new OrderCommand.DecideApproval(ORDER, "approve", "approved", "ann@example.com",
                "Budget checked with finance"), ANN);

        TimelineEntry entry = last();
        assertThat(entry.kind()).isEqualTo("close:approval");
        assertThat(entry.nodeId()).isEqualTo("approve");
        assertThat(entry.message()).isEqualTo("Approve order " + ORDER
                + ": approved by ann@example.com, note: Budget checked with finance");
        assertThat(entry.data().get("by").asString()).isEqualTo("ann@example.com");
        assertThat(entry.data().get("note").asString()).isEqualTo("Budget checked with finance");
        assertThat(entry.data().get("decision").asString()).isEqualTo("approved");
    }

    @Test
    void aRejectionWithoutANoteNamesTheDeciderOnly() {
        agent.report(approvalWait(TWO_DAYS, agent.now()));

        agent.command(new OrderCommand.DecideApproval(ORDER, "approve", "rejected", "token:ci", null),
                new Caller("token", "token:ci", "approver"));

        assertThat(last().message()).isEqualTo("Approve order " + ORDER + ": rejected by token:ci");
    }

    @Test
    void anEscalationSaysOnlyTheBranch() {
        agent.report(approvalWait(TWO_DAYS, agent.now()));

        agent.advance(Duration.ofMinutes(3)); // two days / 1440 = two minutes

        assertThat(last().kind()).isEqualTo("close:approval");
        assertThat(last().message()).isEqualTo("Approve order " + ORDER + ": escalated");
    }

    @Test
    void theCancelEntrySaysWhoCancelledAndWhy() {
        agent.command(new OrderCommand.CancelOrder(ORDER, "Budget frozen"), ANN);

        TimelineEntry entry = last();
        assertThat(entry.kind()).isEqualTo("cancel");
        assertThat(entry.message()).isEqualTo("Cancelled by ann@example.com: Budget frozen");
        assertThat(entry.data()).isEqualTo(Json.object().put("reason", "Budget frozen").put("by", "ann@example.com"));
        assertThat(agent.state(ORDER).reason()).isEqualTo("Budget frozen");
    }

    @Test
    void aCancelWithTheSharedPasswordSaysSo() {
        agent.command(new OrderCommand.CancelOrder(ORDER, "Cancelled via API"),
                new Caller("password", null, "operator"));

        assertThat(last().message()).isEqualTo("Cancelled by shared password: Cancelled via API");
    }

    @Test
    void aPaymentReferenceAndAmountTravelInThePayloadAndShowInTheTimeline() {
        agent.report(eventWait("payment.received", THIRTY_DAYS, agent.now()));

        CommandReply reply = agent.command(new OrderCommand.DeliverEvent(ORDER, "payment.received",
                Json.object().put("source", "back-office").put("reference", "TX-2024-0042").put("amount", 27)
                        .put("currency", "USD")), ANN);

        assertThat(reply.status()).isEqualTo(200);
        OrderState state = agent.state(ORDER);
        assertThat(state.vars().get("payment_received").get("reference").asString()).isEqualTo("TX-2024-0042");
        TimelineEntry entry = last();
        assertThat(entry.kind()).isEqualTo("close:payment.received");
        assertThat(entry.message())
                .isEqualTo("Wait for payment.received: received (reference TX-2024-0042, 27.00 USD)");
        assertThat(entry.data().get("reference").asString()).isEqualTo("TX-2024-0042");
        assertThat(entry.data().get("amount").decimalValue()).isEqualByComparingTo("27");
    }

    @Test
    void anAmountThatIsNotPositiveIsRefusedAndTheWaitStaysOpen() {
        String message = "payload.amount must be a positive number in USD with at most 2 decimals";
        assertRefused(Json.object().put("reference", "TX-1").put("amount", -5), "/payload/amount", message);
        assertRefused(Json.object().put("reference", "TX-1").put("amount", 0), "/payload/amount", message);
        assertRefused(Json.object().put("reference", "TX-1").put("amount", "27"), "/payload/amount", message);
    }

    @Test
    void anAmountWithMoreDecimalsThanTheCurrencyHasIsRefused() {
        assertRefused(Json.object().put("reference", "TX-1").put("amount", 27.001), "/payload/amount",
                "payload.amount must be a positive number in USD with at most 2 decimals");
    }

    @Test
    void anAmountInAnotherCurrencyIsRefused() {
        assertRefused(Json.object().put("reference", "TX-1").put("amount", 27).put("currency", "EUR"),
                "/payload/currency", "payload.currency must be the order's currency, USD");
    }

    @Test
    void aBlankOrOverlongReferenceIsRefused() {
        String message = "payload.reference must be a non-blank string of at most 64 characters";
        assertRefused(Json.object().put("reference", " "), "/payload/reference", message);
        assertRefused(Json.object().put("reference", "R".repeat(65)), "/payload/reference", message);
        assertRefused(Json.object().put("reference", 42), "/payload/reference", message);
    }

    @Test
    void aPayloadWithoutAReferenceIsTheSendersOwnShapeAndIsTakenAsItIs() {
        agent.report(eventWait("payment.received", THIRTY_DAYS, agent.now()));

        CommandReply reply = agent.command(new OrderCommand.DeliverEvent(ORDER, "payment.received",
                Json.object().put("source", "dashboard").put("amount", 0)));

        assertThat(reply.body().get("delivered").asBoolean()).isTrue();
        assertThat(last().message()).isEqualTo("Wait for payment.received: received");
    }

    /** Refused as an invalid body is: 400 with the message and the one issue at {@code path}; nothing changes. */
    private void assertRefused(ObjectNode payload, String path, String message) {
        if (agent.state(ORDER).waits().isEmpty()) {
            agent.report(eventWait("payment.received", THIRTY_DAYS, agent.now()));
        }
        long version = agent.state(ORDER).version();

        CommandReply reply = agent.command(new OrderCommand.DeliverEvent(ORDER, "payment.received", payload), ANN);

        assertThat(reply.kind()).isEqualTo(RejectionKind.INVALID_ARGUMENT);
        ObjectNode expected = Json.object().put("error", message);
        expected.putArray("issues").addObject().put("path", path).put("message", message);
        assertThat(reply.body()).isEqualTo(expected);
        assertThat(agent.state(ORDER).waits()).hasSize(1);
        assertThat(agent.state(ORDER).version()).as("nothing changed").isEqualTo(version);
    }
}
