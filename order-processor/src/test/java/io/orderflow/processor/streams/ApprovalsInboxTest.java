package io.orderflow.processor.streams;

import io.orderflow.processor.approvals.ApprovalRow;
import io.orderflow.processor.query.OrderQueryRouter;
import io.orderflow.processor.query.Pages;
import io.orderflow.schemas.commands.OrderCommand;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.orderflow.processor.streams.Fixtures.start;
import static io.orderflow.processor.streams.Reports.approvalWait;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The approvals inbox by status, read with the code the internal {@code GET /internal/approvals} runs
 * ({@link OrderQueryRouter#inboxPage}, merged by {@link Pages#merge}).
 */
class ApprovalsInboxTest {

    private static final long TWO_DAYS = Duration.ofDays(2).toMillis(); // scaled: two minutes
    private static final long THIRTY_DAYS = Duration.ofDays(30).toMillis(); // scaled: thirty minutes

    private final AgentDriver agent = new AgentDriver();

    @BeforeEach
    void givenFiveOrdersWhoseApprovalsEndedEveryWay() {
        // an approval for each order, opened a second apart (ord_escalated has the short timeout)
        open("ord_rejected", THIRTY_DAYS);
        open("ord_escalated", TWO_DAYS);
        open("ord_pending", THIRTY_DAYS);
        open("ord_approved", THIRTY_DAYS);
        open("ord_cancelled", THIRTY_DAYS);

        agent.command(new OrderCommand.DecideApproval("ord_rejected", "approve", "rejected", "ops@example.com",
                "Too expensive"));
        agent.command(new OrderCommand.DecideApproval("ord_approved", "approve", "approved", null, null));
        agent.command(new OrderCommand.CancelOrder("ord_cancelled", null));
        agent.advance(Duration.ofMinutes(2)); // ord_escalated's scaled deadline passes; the others have 30 minutes
    }

    @AfterEach
    void close() {
        agent.close();
    }

    @Test
    void eachStatusFilterAnswersOnlyItsRows() {
        assertThat(orderIds(inbox("pending"))).containsExactly("ord_pending");
        assertThat(orderIds(inbox("approved"))).containsExactly("ord_approved");
        assertThat(orderIds(inbox("rejected"))).containsExactly("ord_rejected");
        assertThat(orderIds(inbox("escalated"))).containsExactly("ord_escalated");
    }

    @Test
    void allAnswersEveryRowSoonestDeadlineFirstIncludingClosedOnes() {
        // ord_escalated's deadline was two (scaled) minutes, the others' 30, opened one second apart
        List<String> soonestFirst = List.of("ord_escalated", "ord_rejected", "ord_pending", "ord_approved",
                "ord_cancelled");

        assertThat(orderIds(inbox("all"))).containsExactlyElementsOf(soonestFirst);
        assertThat(orderIds(inbox(null))).as("no status means all").containsExactlyElementsOf(soonestFirst);
        assertThat(orderIds(inbox("cancelled"))).containsExactly("ord_cancelled");
    }

    @Test
    void closedRowsShowTheirOutcomeDeciderAndNote() {
        JsonNode rejected = inbox("rejected").getFirst();
        assertThat(rejected.get("status").asString()).isEqualTo("rejected");
        assertThat(rejected.get("decidedBy").asString()).isEqualTo("ops@example.com");
        assertThat(rejected.get("note").asString()).isEqualTo("Too expensive");
        assertThat(rejected.get("amount").decimalValue()).isEqualByComparingTo("27.00");

        JsonNode escalated = inbox("escalated").getFirst();
        assertThat(escalated.get("decidedBy").asString()).isEqualTo("timeout");
        assertThat(escalated.get("decidedAt").asLong()).isEqualTo(agent.now());

        JsonNode pending = inbox("pending").getFirst();
        assertThat(pending.has("decidedAt")).isFalse();
        assertThat(pending.get("title").asString()).isEqualTo("Approve order ord_pending");
        assertThat(pending.get("assignee").asString()).isEqualTo("manager");
    }

    @Test
    void theInboxGoesSoonestDeadlineFirstWithTheOrderTitleAndFiltersByAssignee() {
        // given two more approvals opened now: one due in (scaled) thirty minutes, one in two
        open("ord_later", THIRTY_DAYS);
        open("ord_sooner", TWO_DAYS);

        // when the pending inbox is read for the manager, in any case
        JsonNode page = inbox("pending", "MANAGER");

        // then the one due soonest comes first, each with its deadline, order title and currency
        List<JsonNode> rows = new ArrayList<>();
        page.get("approvals").forEach(rows::add);
        assertThat(orderIds(rows)).containsExactly("ord_sooner", "ord_pending", "ord_later");
        assertThat(rows.getFirst().get("deadline").asLong()).isEqualTo(agent.now() - 1_000 + 2 * 60_000);
        assertThat(rows.getFirst().get("orderTitle").asString()).isEqualTo("Storefront order · cus_42");
        assertThat(rows.getFirst().get("currency").asString()).isEqualTo("USD");
        assertThat(page.has("next")).isFalse();
        // and nobody else's approvals answer for another assignee
        assertThat(inbox("pending", "finance").get("approvals")).isEmpty();
    }

    private void open(String orderId, long timeoutMs) {
        agent.command(start(orderId));
        agent.report(approvalWait(orderId, timeoutMs, agent.now()));
        agent.advance(Duration.ofSeconds(1));
    }

    private List<JsonNode> inbox(String status) {
        List<JsonNode> rows = new ArrayList<>();
        inbox(status, null).get("approvals").forEach(rows::add);
        return rows;
    }

    /** A page of the inbox as the internal query API answers it. */
    private JsonNode inbox(String status, String assignee) {
        return Pages.merge("approvals", List.of(OrderQueryRouter.inboxPage(agent.partitions(OrderAgent.APPROVALS),
                status, assignee, null)), OrderQueryRouter.APPROVALS_BY_DEADLINE, 100);
    }

    private static List<String> orderIds(List<JsonNode> rows) {
        return rows.stream().map(row -> row.get("orderId").asString()).toList();
    }
}
