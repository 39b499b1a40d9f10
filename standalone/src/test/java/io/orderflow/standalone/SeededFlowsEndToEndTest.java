package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.testing.TestKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Every seeded flow driven to every outcome it can reach, the way a user drives it with curl: start an order, decide
 * its approvals, deliver its events, cancel it, force failure paths with {@code meta.simulate}, and read the live
 * state for the final status and the branch that got there.
 *
 * <p>One standalone system serves the whole class, and the tests run concurrently, each on orders of its own: most of
 * a test is waiting for Kafka, a timer or a retry backoff. The class runs its own system rather than the shared one
 * because its services count time differently.
 *
 * <p>Time is compressed per service through their own settings files. The flow-runner sleeps every
 * {@code control.wait} (a 3-day lead time, a 30-day renewal period) for one second. The order-processor turns a day of
 * an approval timeout into {@link #APPROVAL_DAY}: long enough to decide over HTTP before the deadline even on a busy
 * machine (a decision usually lands within 2 s of the wait opening), short enough to watch nobody decide. The B2B
 * order's 30-day payment timeout would then take five minutes, so that one path has a class of its own,
 * {@code PaymentTimeoutEndToEndTest}.
 */
@OwnSystem
class SeededFlowsEndToEndTest {

    /** One day of an approval or event timeout, as the order-processor counts it here. */
    private static final Duration APPROVAL_DAY = Duration.ofSeconds(10);
    private static final long PROCESSOR_TIME_SCALE = Duration.ofDays(1).toMillis() / APPROVAL_DAY.toMillis();
    /** 30 days (the longest {@code control.wait}) become one second, the floor of a scaled sleep. */
    private static final long RUNNER_TIME_SCALE = Duration.ofDays(30).toSeconds();
    private static final Duration SETTLES = Duration.ofSeconds(90);

    private static StandaloneSystem system;
    private static WebTestClient http;

    @BeforeAll
    static void startTheSystemOnce() {
        Path dataDir = TestKafka.uniqueStateDir("seeded-flows-e2e");
        Path config = serviceSettings(dataDir.resolve("config"));
        // Each service reads <service>.yaml from the additional location too; only the start reads the property.
        System.setProperty("spring.config.additional-location", "optional:" + config.toUri());
        try {
            system = StandaloneSystem.start(new StandaloneSettings(0, dataDir, Optional.empty(), 0));
        } finally {
            System.clearProperty("spring.config.additional-location");
        }
        http = WebTestClient.bindToServer()
                .baseUrl("http://localhost:" + system.gatewayPort())
                .responseTimeout(Duration.ofSeconds(15))
                .build();
        await().atMost(SETTLES).untilAsserted(() -> http.get().uri("/api/v1/flows").exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.flows.length()").isEqualTo(5)
                .jsonPath("$.flows[?(@.publishedVersion != 1)]").doesNotExist());
    }

    @AfterAll
    static void stopTheSystem() {
        if (system != null) {
            system.close();
        }
    }

    private static Path serviceSettings(Path dir) {
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("order-processor.yaml"),
                    "orderflow:\n  time-scale: " + PROCESSOR_TIME_SCALE + "\n");
            Files.writeString(dir.resolve("flow-runner.yaml"), "orderflow:\n  time-scale: " + RUNNER_TIME_SCALE + "\n");
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- every flow prices its lines; a line the price list does not know fails the run -------------------------

    @Execution(ExecutionMode.CONCURRENT)
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"purchase_request", "b2b_order", "reorder", "subscription", "storefront_order"})
    void givenALineWithoutAPrice_whenPricing_thenTheRunFailsAndWhatRanIsRolledBack(String flowId) {
        String orderId = start(flowId, input(flowId, "cus_unpriced_" + flowId, List.of(line("NO-SUCH-SKU", 1)),
                Map.of()));

        awaitStatus(orderId, "rolled_back")
                .jsonPath("$.reason").value(String.class, reason -> assertThat(reason)
                        .endsWith(" failed: No price for SKU NO-SUCH-SKU in the price list"))
                .jsonPath("$.rollback.outcome").isEqualTo("complete")
                .jsonPath("$.nodes.pricing.status").isEqualTo("failed")
                .jsonPath("$.nodes.pricing.error").isEqualTo("No price for SKU NO-SUCH-SKU in the price list")
                .jsonPath("$.nodes.tax.status").isEqualTo("pending")
                .jsonPath("$.nodes.*.status").value(List.class, statuses -> assertThat(statuses)
                        .contains("failed").doesNotContain("succeeded"))
                .jsonPath("$.timeline[?(@.message == 'Rollback complete')]").exists();
    }

    // ---- purchase_request: extract, price, policy, manager approval above 1,000, director on escalation ----------

    @Nested
    @Execution(ExecutionMode.CONCURRENT)
    class PurchaseRequest {

        @Test
        void givenASmallRequestInAnEmail_whenStarted_thenItIsExtractedAndCompletedWithoutApproval() {
            String orderId = start("purchase_request", document("purchase_request", "cus_pr_small",
                    "Hi team,\n2 x PAPER-A4 Copy paper\n1 x TONER-K Black toner\nThanks!", Map.of()));

            awaitStatus(orderId, "completed")
                    .jsonPath("$.nodes.extract.output.source").isEqualTo("document")
                    .jsonPath("$.nodes.extract.output.lineCount").isEqualTo(2)
                    .jsonPath("$.order.total").isEqualTo(102.5)
                    .jsonPath("$.nodes.needs_approval.branches[0]").isEqualTo("false")
                    .jsonPath("$.nodes.approval.status").isEqualTo("skipped")
                    .jsonPath("$.nodes.invoice.status").isEqualTo("succeeded")
                    .jsonPath("$.nodes.completed.status").isEqualTo("succeeded")
                    .jsonPath("$.edges.e8").isEqualTo("active")
                    .jsonPath("$.waits").isEmpty();
        }

        @Test
        void givenARequestAbove1000_whenTheManagerApproves_thenItCompletesWithTheDecisionAsOutput() {
            String orderId = start("purchase_request", input("purchase_request", "cus_pr_approve",
                    List.of(line("LAPTOP-14", 2)), Map.of()));
            awaitWaitAt(orderId, "approval")
                    .jsonPath("$.status").isEqualTo("waiting")
                    .jsonPath("$.waits[0].kind").isEqualTo("approval")
                    .jsonPath("$.waits[0].assignee").isEqualTo("manager")
                    .jsonPath("$.waits[0].title").isEqualTo("Approve order " + orderId)
                    .jsonPath("$.waits[0].amount").isEqualTo(2598.0);

            decide(orderId, "approval", "approved", "maria", "Needed for the new hires");

            awaitStatus(orderId, "completed")
                    .jsonPath("$.nodes.approval.output.decision").isEqualTo("approved")
                    .jsonPath("$.nodes.approval.output.by").isEqualTo("maria")
                    .jsonPath("$.nodes.approval.output.note").isEqualTo("Needed for the new hires")
                    .jsonPath("$.nodes.approval.output.outcome").isEqualTo("approved")
                    .jsonPath("$.nodes.approval.branches[0]").isEqualTo("approved")
                    .jsonPath("$.nodes.director.status").isEqualTo("skipped")
                    .jsonPath("$.nodes.reserve.status").isEqualTo("succeeded")
                    .jsonPath("$.nodes.completed.status").isEqualTo("succeeded")
                    .jsonPath("$.waits").isEmpty();
        }

        @Test
        void givenARequestAbove1000_whenTheManagerRejects_thenItIsDeclinedAsRejected() {
            String orderId = start("purchase_request", input("purchase_request", "cus_pr_reject",
                    List.of(line("LAPTOP-14", 2)), Map.of()));
            awaitWaitAt(orderId, "approval");

            decide(orderId, "approval", "rejected", "maria", "Use the spare laptops");

            awaitStatus(orderId, "declined")
                    .jsonPath("$.reason").isEqualTo("Rejected by an approver")
                    .jsonPath("$.nodes.approval.output.decision").isEqualTo("rejected")
                    .jsonPath("$.nodes.rejected.status").isEqualTo("succeeded")
                    .jsonPath("$.nodes.reserve.status").isEqualTo("skipped");
        }

        @ParameterizedTest(name = "director {0} -> {1}")
        @CsvSource({"approved, completed", "rejected, declined"})
        void givenTheManagerDoesNotDecide_whenTheApprovalTimesOut_thenTheDirectorDecides(String decision,
                                                                                        String status) {
            String orderId = start("purchase_request", input("purchase_request", "cus_pr_director_" + decision,
                    List.of(line("LAPTOP-14", 2)), Map.of()));

            awaitWaitAt(orderId, "director")
                    .jsonPath("$.waits[0].assignee").isEqualTo("director")
                    .jsonPath("$.waits[0].title").isEqualTo("Escalated: approve order " + orderId)
                    .jsonPath("$.nodes.approval.branches[0]").isEqualTo("escalated")
                    .jsonPath("$.nodes.approval.output.by").isEqualTo("timeout")
                    .jsonPath("$.nodes.approval.output.outcome").isEqualTo("escalated");
            decide(orderId, "director", decision, "dana", null);

            awaitStatus(orderId, status)
                    .jsonPath("$.nodes.director.output.decision").isEqualTo(decision)
                    .jsonPath("$.nodes.director.output.by").isEqualTo("dana")
                    .jsonPath("$.nodes." + ("approved".equals(decision) ? "completed" : "rejected") + ".status")
                    .isEqualTo("succeeded");
        }

        @Test
        void givenNobodyDecides_whenManagerAndDirectorTimeOut_thenItIsCancelledForNoDecision() {
            String orderId = start("purchase_request", input("purchase_request", "cus_pr_nobody",
                    List.of(line("LAPTOP-14", 2)), Map.of()));

            awaitStatus(orderId, "cancelled")
                    .jsonPath("$.reason").isEqualTo("Nobody decided, even after escalation")
                    .jsonPath("$.nodes.approval.output.outcome").isEqualTo("escalated")
                    .jsonPath("$.nodes.director.output.outcome").isEqualTo("escalated")
                    .jsonPath("$.nodes.no_decision.status").isEqualTo("succeeded")
                    .jsonPath("$.nodes.reserve.status").isEqualTo("skipped");
        }

        @Test
        void givenAnEmailWithoutOrderLines_whenStarted_thenItIsDeclinedAsEmpty() {
            String orderId = start("purchase_request", document("purchase_request", "cus_pr_empty",
                    "Hello, could you call me back about our order?", Map.of()));

            awaitStatus(orderId, "declined")
                    .jsonPath("$.reason").isEqualTo("No order lines found in the request")
                    .jsonPath("$.nodes.extract.branches[0]").isEqualTo("empty")
                    .jsonPath("$.nodes.empty.status").isEqualTo("succeeded")
                    .jsonPath("$.nodes.pricing.status").isEqualTo("skipped");
        }

        @Test
        void givenARequestAboveTheLimitForAPoBox_whenStarted_thenItIsDeclinedWithEveryViolation() {
            String orderId = start("purchase_request", input("purchase_request", "cus_pr_policy",
                    List.of(line("LAPTOP-14", 40)), Map.of("shipTo", "P.O. Box 12, Springfield")));

            awaitStatus(orderId, "declined")
                    .jsonPath("$.reason").isEqualTo("Order total above 50000 USD Cannot ship to a P.O. box")
                    .jsonPath("$.nodes.policy.output.passed").isEqualTo(false)
                    .jsonPath("$.nodes.policy.branches[0]").isEqualTo("fail")
                    .jsonPath("$.nodes.policy_failed.status").isEqualTo("succeeded")
                    .jsonPath("$.nodes.approval.status").isEqualTo("skipped");
        }

        @Test
        void givenStockIsShort_whenStarted_thenItIsDeclinedOutOfStock() {
            String orderId = start("purchase_request", input("purchase_request", "cus_pr_stock",
                    List.of(line("WIDGET-2", 10)), simulate("out_of_stock")));

            awaitStatus(orderId, "declined")
                    .jsonPath("$.reason").isEqualTo("Out of stock")
                    .jsonPath("$.nodes.reserve.output.shortSkus[0]").isEqualTo("WIDGET-2")
                    .jsonPath("$.nodes.out_of_stock.status").isEqualTo("succeeded")
                    .jsonPath("$.nodes.invoice.status").isEqualTo("skipped");
        }

        @Test
        void givenARequestWaitingForApproval_whenCancelled_thenTheWaitIsClearedAndALateDecisionIsRefused() {
            String orderId = start("purchase_request", input("purchase_request", "cus_pr_cancel",
                    List.of(line("LAPTOP-14", 2)), Map.of()));
            awaitWaitAt(orderId, "approval");

            cancel(orderId, "Budget frozen");

            read(orderId)
                    .jsonPath("$.status").isEqualTo("cancelled")
                    .jsonPath("$.reason").isEqualTo("Budget frozen")
                    .jsonPath("$.waits").isEmpty()
                    .jsonPath("$.timeline[?(@.kind == 'cancel' && @.data.reason == 'Budget frozen')]").exists();
            http.post().uri("/api/v1/orders/{id}/approvals/{node}", orderId, "approval")
                    .contentType(MediaType.APPLICATION_JSON).bodyValue(Map.of("decision", "approved")).exchange()
                    .expectStatus().isEqualTo(HttpStatus.CONFLICT)
                    .expectBody().jsonPath("$.error").isEqualTo("That node is not waiting for an approval.");
            http.post().uri("/api/v1/orders/{id}/cancel", orderId).contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of()).exchange()
                    .expectStatus().isOk()
                    .expectBody().jsonPath("$.ok").isEqualTo(false);
        }
    }

    // ---- b2b_order: extract, price, VAT, credit check (finance override), reserve, invoice, wait for payment --------

    @Nested
    @Execution(ExecutionMode.CONCURRENT)
    class B2bOrder {

        @Test
        void givenAPurchaseOrderWithinCredit_whenPaymentIsReceived_thenItIsCapturedShippedAndCompleted() {
            String orderId = start("b2b_order", document("b2b_order", "cus_b2b_paid",
                    "PO 4711\n10 x WIDGET-1 Blue widget @ 12.50\n4 x GADGET-1\n", Map.of("shipTo", "1 Dock Road")));
            awaitWaitAt(orderId, "await_payment")
                    .jsonPath("$.waits[0].kind").isEqualTo("event")
                    .jsonPath("$.waits[0].event").isEqualTo("payment.received")
                    .jsonPath("$.nodes.invoice.status").isEqualTo("succeeded")
                    .jsonPath("$.order.total").isEqualTo(385.2);

            deliver(orderId, "payment.received", Map.of("amount", 385.2, "reference", "WIRE-4711"))
                    .jsonPath("$.delivered").isEqualTo(true)
                    .jsonPath("$.nodeId").isEqualTo("await_payment");

            awaitStatus(orderId, "completed")
                    .jsonPath("$.vars.payment_received.reference").isEqualTo("WIRE-4711")
                    .jsonPath("$.vars.payment_received.event").isEqualTo("payment.received")
                    .jsonPath("$.vars.payment_received.at").isNumber()
                    .jsonPath("$.nodes.await_payment.branches[0]").isEqualTo("received")
                    .jsonPath("$.nodes.capture.output.captured").isEqualTo(true)
                    .jsonPath("$.nodes.ship.output.carrier").isEqualTo("MockCarrier")
                    .jsonPath("$.nodes.override.status").isEqualTo("skipped")
                    .jsonPath("$.nodes.completed.status").isEqualTo("succeeded");
            deliver(orderId, "payment.received", Map.of()).jsonPath("$.delivered").isEqualTo(false);
        }

        @Test
        void givenAnOrderAboveTheCreditLimit_whenFinanceApprovesTheOverride_thenItGoesOnToPaymentAndCompletes() {
            String orderId = start("b2b_order", input("b2b_order", "cus_b2b_override",
                    List.of(line("LAPTOP-14", 20)), Map.of("shipTo", "1 Dock Road")));
            awaitWaitAt(orderId, "override")
                    .jsonPath("$.waits[0].assignee").isEqualTo("finance")
                    .jsonPath("$.waits[0].title").isEqualTo("Credit override for cus_b2b_override")
                    .jsonPath("$.nodes.credit.output.violations[0]").isEqualTo("Credit limit of 25000 USD exceeded");

            decide(orderId, "override", "approved", "fiona", "Long-standing customer");
            awaitWaitAt(orderId, "await_payment");
            deliver(orderId, "payment.received", Map.of("source", "back-office"));

            awaitStatus(orderId, "completed")
                    .jsonPath("$.nodes.override.output.decision").isEqualTo("approved")
                    .jsonPath("$.nodes.override.output.by").isEqualTo("fiona")
                    .jsonPath("$.nodes.credit_refused.status").isEqualTo("skipped")
                    .jsonPath("$.vars.payment_received.source").isEqualTo("back-office");
        }

        @Test
        void givenAnOrderAboveTheCreditLimit_whenFinanceRejectsTheOverride_thenItIsDeclinedCreditRefused() {
            String orderId = start("b2b_order", input("b2b_order", "cus_b2b_refused",
                    List.of(line("LAPTOP-14", 20)), Map.of()));
            awaitWaitAt(orderId, "override");

            decide(orderId, "override", "rejected", "fiona", "Two invoices overdue");

            awaitStatus(orderId, "declined")
                    .jsonPath("$.reason").isEqualTo("Credit override was not granted")
                    .jsonPath("$.nodes.override.output.decision").isEqualTo("rejected")
                    .jsonPath("$.nodes.override.output.note").isEqualTo("Two invoices overdue")
                    .jsonPath("$.nodes.credit_refused.status").isEqualTo("succeeded")
                    .jsonPath("$.nodes.reserve.status").isEqualTo("skipped");
        }

        @Test
        void givenAnOrderAboveTheCreditLimit_whenFinanceNeverDecides_thenTheOverrideEscalatesToCreditRefused() {
            String orderId = start("b2b_order", input("b2b_order", "cus_b2b_silent",
                    List.of(line("LAPTOP-14", 20)), Map.of()));

            awaitStatus(orderId, "declined")
                    .jsonPath("$.reason").isEqualTo("Credit override was not granted")
                    .jsonPath("$.nodes.override.branches[0]").isEqualTo("escalated")
                    .jsonPath("$.nodes.override.output.by").isEqualTo("timeout")
                    .jsonPath("$.nodes.override.output.outcome").isEqualTo("escalated")
                    .jsonPath("$.nodes.credit_refused.status").isEqualTo("succeeded");
        }

        @Test
        void givenAPurchaseOrderWithoutLines_whenStarted_thenItIsDeclinedAsEmpty() {
            String orderId = start("b2b_order", document("b2b_order", "cus_b2b_empty",
                    "Please see the attached spreadsheet.", Map.of()));

            awaitStatus(orderId, "declined")
                    .jsonPath("$.reason").isEqualTo("No order lines found in the purchase order")
                    .jsonPath("$.nodes.empty.status").isEqualTo("succeeded");
        }

        @Test
        void givenStockIsShort_whenStarted_thenItIsDeclinedOutOfStockBeforeInvoicing() {
            String orderId = start("b2b_order", input("b2b_order", "cus_b2b_stock",
                    List.of(line("WIDGET-1", 10)), simulate("out_of_stock")));

            awaitStatus(orderId, "declined")
                    .jsonPath("$.reason").isEqualTo("Out of stock")
                    .jsonPath("$.nodes.out_of_stock.status").isEqualTo("succeeded")
                    .jsonPath("$.nodes.invoice.status").isEqualTo("skipped");
        }

        @Test
        void givenTheCardIsDeclined_whenPaymentIsReceived_thenTheCaptureDeclinesTheOrder() {
            String orderId = start("b2b_order", input("b2b_order", "cus_b2b_declined",
                    List.of(line("WIDGET-1", 10)), simulate("payment_declined")));
            awaitWaitAt(orderId, "await_payment");

            deliver(orderId, "payment.received", Map.of("source", "dashboard"));

            awaitStatus(orderId, "declined")
                    .jsonPath("$.reason").isEqualTo("Payment was declined")
                    .jsonPath("$.nodes.capture.branches[0]").isEqualTo("declined")
                    .jsonPath("$.nodes.capture.output.declined").isEqualTo(true)
                    .jsonPath("$.nodes.declined.status").isEqualTo("succeeded")
                    .jsonPath("$.nodes.declined.summary").value(String.class, summary -> assertThat(summary)
                            .as("the stock reserved for the order is given back").contains("1 held stock released"))
                    .jsonPath("$.nodes.ship.status").isEqualTo("skipped");
        }

        @Test
        void givenTheCarrierIsDown_whenShippingFailsEveryRetry_thenPaymentInvoiceAndStockAreRolledBack() {
            String orderId = start("b2b_order", input("b2b_order", "cus_b2b_carrier",
                    List.of(line("WIDGET-1", 10)), simulate("carrier_down")));
            awaitWaitAt(orderId, "await_payment");

            deliver(orderId, "payment.received", Map.of());

            awaitStatus(orderId, "rolled_back")
                    .jsonPath("$.reason").isEqualTo("Ship order " + orderId
                            + " failed: Carrier unreachable (simulated carrier_down)")
                    .jsonPath("$.rollback.outcome").isEqualTo("complete")
                    .jsonPath("$.nodes.ship.status").isEqualTo("failed")
                    .jsonPath("$.nodes.ship.summary").isEqualTo("Failed after 3 attempt(s)")
                    .jsonPath("$.nodes.capture.status").isEqualTo("rolled_back")
                    .jsonPath("$.nodes.invoice.status").isEqualTo("rolled_back")
                    .jsonPath("$.nodes.reserve.status").isEqualTo("rolled_back");
        }

        @Test
        void givenTheCarrierIsDownAndCompensationFails_whenShippingFails_thenTheOrderStaysFailedWithTheRollbackError() {
            String orderId = start("b2b_order", input("b2b_order", "cus_b2b_stuck",
                    List.of(line("WIDGET-1", 10)), simulate("carrier_down", "compensation_failed")));
            awaitWaitAt(orderId, "await_payment");

            deliver(orderId, "payment.received", Map.of());

            awaitRollback(orderId, "failed")
                    .jsonPath("$.status").isEqualTo("failed")
                    .jsonPath("$.rollback.error").value(String.class, error -> assertThat(error)
                            .startsWith("Compensating capture failed: Could not refund pay-" + orderId))
                    .jsonPath("$.nodes.ship.status").isEqualTo("failed");
        }

        @Test
        void givenAnOrderAwaitingPayment_whenCancelled_thenItsHeldStockIsReleased() {
            String orderId = start("b2b_order", input("b2b_order", "cus_b2b_cancel",
                    List.of(line("WIDGET-1", 10)), Map.of()));
            awaitWaitAt(orderId, "await_payment");

            cancel(orderId, null);

            awaitTimeline(orderId, "Compensated: 1 held stock released, 0 authorizations voided, 0 shipments cancelled")
                    .jsonPath("$.status").isEqualTo("cancelled")
                    .jsonPath("$.reason").isEqualTo("Cancelled via API")
                    .jsonPath("$.waits").isEmpty();
            deliver(orderId, "payment.received", Map.of()).jsonPath("$.delivered").isEqualTo(false);
        }
    }

    // ---- reorder: budget (purchasing approves above 10,000), authorize, lead time, capture, receive, invoice -------

    @Nested
    @Execution(ExecutionMode.CONCURRENT)
    class Reorder {

        @Test
        void givenAReorderWithinBudget_whenStarted_thenItIsAuthorizedWaitsTheLeadTimeAndIsCapturedReceivedAndBooked() {
            String orderId = start("reorder", input("reorder", "warehouse_within_budget",
                    List.of(line("PAPER-A4", 100)), Map.of()));

            awaitStatus(orderId, "completed")
                    .jsonPath("$.order.total").isEqualTo(675.0)
                    .jsonPath("$.nodes.approval.status").isEqualTo("skipped")
                    .jsonPath("$.nodes.authorize.output.captured").isEqualTo(false)
                    .jsonPath("$.nodes.lead_time.output.duration").isEqualTo("PT72H")
                    .jsonPath("$.nodes.lead_time.output.sleptMs").isEqualTo(1000)
                    .jsonPath("$.nodes.capture.output.captured").isEqualTo(true)
                    .jsonPath("$.nodes.capture.output.authorizationId")
                    .isEqualTo("auth-" + orderId + "-g1-authorize-a1")
                    .jsonPath("$.nodes.ship.status").isEqualTo("succeeded")
                    .jsonPath("$.nodes.invoice.status").isEqualTo("succeeded")
                    .jsonPath("$.nodes.completed.status").isEqualTo("succeeded");
        }

        @ParameterizedTest(name = "purchasing {0} -> {1}")
        @CsvSource({"approved, completed", "rejected, declined"})
        void givenAReorderAboveBudget_whenPurchasingDecides_thenItFollowsTheDecision(String decision, String status) {
            String orderId = start("reorder", input("reorder", "warehouse_above_budget_" + decision,
                    List.of(line("LAPTOP-14", 10)), Map.of()));
            awaitWaitAt(orderId, "approval")
                    .jsonPath("$.waits[0].assignee").isEqualTo("purchasing")
                    .jsonPath("$.waits[0].title").isEqualTo("Approve reorder " + orderId)
                    .jsonPath("$.nodes.budget.output.violations[0]").isEqualTo("Order total above 10000 USD");

            decide(orderId, "approval", decision, "paul", null);

            WebTestClient.BodyContentSpec order = awaitStatus(orderId, status)
                    .jsonPath("$.nodes.approval.output.decision").isEqualTo(decision)
                    .jsonPath("$.nodes.approval.output.by").isEqualTo("paul");
            if ("approved".equals(decision)) {
                order.jsonPath("$.nodes.capture.output.captured").isEqualTo(true)
                        .jsonPath("$.nodes.completed.status").isEqualTo("succeeded");
            } else {
                order.jsonPath("$.reason").isEqualTo("Reorder above budget was not approved")
                        .jsonPath("$.nodes.authorize.status").isEqualTo("skipped");
            }
        }

        @Test
        void givenAReorderAboveBudget_whenPurchasingNeverDecides_thenItIsDeclinedAsNotApproved() {
            String orderId = start("reorder", input("reorder", "warehouse_silent",
                    List.of(line("LAPTOP-14", 10)), Map.of()));

            awaitStatus(orderId, "declined")
                    .jsonPath("$.reason").isEqualTo("Reorder above budget was not approved")
                    .jsonPath("$.nodes.approval.branches[0]").isEqualTo("escalated")
                    .jsonPath("$.nodes.approval.output.by").isEqualTo("timeout")
                    .jsonPath("$.nodes.rejected.status").isEqualTo("succeeded");
        }

        @Test
        void givenTheSupplierPaymentIsDeclined_whenAuthorizing_thenItIsDeclinedBeforeTheLeadTime() {
            String orderId = start("reorder", input("reorder", "warehouse_declined",
                    List.of(line("PAPER-A4", 100)), simulate("payment_declined")));

            awaitStatus(orderId, "declined")
                    .jsonPath("$.reason").isEqualTo("Supplier payment was declined")
                    .jsonPath("$.nodes.authorize.branches[0]").isEqualTo("declined")
                    .jsonPath("$.nodes.authorize.output.message")
                    .isEqualTo("Card declined (simulated payment_declined)")
                    .jsonPath("$.nodes.lead_time.status").isEqualTo("skipped");
        }

        @Test
        void givenTheCarrierIsDown_whenReceivingFailsEveryRetry_thenTheSupplierPaymentIsRolledBack() {
            String orderId = start("reorder", input("reorder", "warehouse_carrier",
                    List.of(line("PAPER-A4", 100)), simulate("carrier_down")));

            awaitStatus(orderId, "rolled_back")
                    .jsonPath("$.reason").isEqualTo("Receive into warehouse failed: Carrier unreachable "
                            + "(simulated carrier_down)")
                    .jsonPath("$.rollback.outcome").isEqualTo("complete")
                    .jsonPath("$.nodes.ship.status").isEqualTo("failed")
                    .jsonPath("$.nodes.capture.status").isEqualTo("rolled_back")
                    .jsonPath("$.nodes.authorize.status").isEqualTo("rolled_back");
        }

        @Test
        void givenTheCarrierIsDownAndCompensationFails_whenReceivingFails_thenItStaysFailedWithTheRollbackError() {
            String orderId = start("reorder", input("reorder", "warehouse_stuck",
                    List.of(line("PAPER-A4", 100)), simulate("carrier_down", "compensation_failed")));

            awaitRollback(orderId, "failed")
                    .jsonPath("$.status").isEqualTo("failed")
                    .jsonPath("$.rollback.error").isEqualTo("Compensating capture failed: Could not refund pay-"
                            + orderId + "-g1-capture-a1 (simulated compensation_failed)")
                    .jsonPath("$.nodes.ship.status").isEqualTo("failed")
                    .jsonPath("$.nodes.capture.status").isEqualTo("succeeded")
                    .jsonPath("$.nodes.capture.error").value(String.class, error -> assertThat(error)
                            .startsWith("Compensating capture failed"));
        }

        @Test
        void givenAReorderWaitingForPurchasing_whenCancelled_thenItIsCancelledWithNothingHeld() {
            String orderId = start("reorder", input("reorder", "warehouse_cancel",
                    List.of(line("LAPTOP-14", 10)), Map.of()));
            awaitWaitAt(orderId, "approval");

            cancel(orderId, "Supplier changed");

            awaitTimeline(orderId, "Compensated: 0 held stock released, 0 authorizations voided, 0 shipments cancelled")
                    .jsonPath("$.status").isEqualTo("cancelled")
                    .jsonPath("$.reason").isEqualTo("Supplier changed")
                    .jsonPath("$.waits").isEmpty();
        }
    }

    // ---- subscription: charge and invoice each period, sleep until renewal, loop for vars.term periods ----------

    @Nested
    @Execution(ExecutionMode.CONCURRENT)
    class Subscription {

        @Test
        void givenATwoPeriodTerm_whenStarted_thenEachPeriodIsChargedAndInvoicedAndTheTermCompletes() {
            String orderId = start("subscription", input("subscription", "cus_sub_term",
                    List.of(line("SAAS-SEAT", 5)), Map.of()), Map.of("term", 2));

            awaitStatus(orderId, "completed")
                    .jsonPath("$.order.total").isEqualTo(165.0)
                    .jsonPath("$.vars.term").isEqualTo(2)
                    .jsonPath("$.vars.renewals").isEqualTo(2)
                    .jsonPath("$.nodes.charge.runs.length()").isEqualTo(2)
                    .jsonPath("$.nodes.invoice.runs.length()").isEqualTo(2)
                    .jsonPath("$.nodes.renew.branches[0]").isEqualTo("false")
                    .jsonPath("$.nodes.next_period.output.duration").isEqualTo("PT720H")
                    .jsonPath("$.nodes.completed.status").isEqualTo("succeeded")
                    .jsonPath("$.edges.e7").isEqualTo("inactive")
                    .jsonPath("$.edges.e8").isEqualTo("active");
        }

        @Test
        void givenTheCardIsDeclined_whenTheFirstPeriodIsCharged_thenTheSubscriptionIsDeclined() {
            String orderId = start("subscription", input("subscription", "cus_sub_declined",
                    List.of(line("SAAS-SEAT", 5)), simulate("payment_declined")));

            awaitStatus(orderId, "declined")
                    .jsonPath("$.reason").isEqualTo("Renewal payment was declined")
                    .jsonPath("$.nodes.charge.branches[0]").isEqualTo("declined")
                    .jsonPath("$.nodes.invoice.status").isEqualTo("skipped")
                    .jsonPath("$.nodes.declined.status").isEqualTo("succeeded");
        }

        @Test
        void givenARunningTwelvePeriodSubscription_whenCancelledAfterTheFirstInvoice_thenItStopsCancelled() {
            String orderId = start("subscription", input("subscription", "cus_sub_cancel",
                    List.of(line("SUPPORT-PLAN", 1)), Map.of()));
            await().atMost(SETTLES).untilAsserted(() -> read(orderId)
                    .jsonPath("$.nodes.invoice.status").isEqualTo("succeeded"));

            cancel(orderId, "Customer churned");

            awaitTimeline(orderId, "Compensated: 0 held stock released, 0 authorizations voided, 0 shipments cancelled")
                    .jsonPath("$.status").isEqualTo("cancelled")
                    .jsonPath("$.reason").isEqualTo("Customer churned")
                    // a cancel leaves no node pending: what the run will never reach is skipped
                    .jsonPath("$.nodes.completed.status").isEqualTo("skipped");
        }
    }

    // ---- storefront_order: price, tax, charge, reserve, ship, receipt; out of stock after the charge refunds ------

    @Nested
    @Execution(ExecutionMode.CONCURRENT)
    class StorefrontOrder {

        @Test
        void givenACheckout_whenStarted_thenItIsChargedShippedInvoicedAndCompleted() {
            String orderId = start("storefront_order", input("storefront_order", "cus_web_ok",
                    List.of(line("TSHIRT-RED-M", 2, 19.5)), Map.of("shipTo", "1 Main Street, Springfield")));

            awaitStatus(orderId, "completed")
                    .jsonPath("$.order.subtotal").isEqualTo(39.0)
                    .jsonPath("$.order.tax").isEqualTo(3.12)
                    .jsonPath("$.order.total").isEqualTo(42.12)
                    .jsonPath("$.nodes.charge.output.paymentId").isEqualTo("pay-" + orderId + "-g1-charge-a1")
                    .jsonPath("$.nodes.reserve.output.reserved").isEqualTo(true)
                    .jsonPath("$.nodes.ship.output.trackingNumber").isNotEmpty()
                    .jsonPath("$.nodes.invoice.output.dueDays").isEqualTo(0)
                    .jsonPath("$.nodes.refund.status").isEqualTo("skipped")
                    .jsonPath("$.nodes.completed.status").isEqualTo("succeeded");
        }

        @Test
        void givenTheCardIsDeclined_whenCharging_thenItIsDeclinedWithoutReservingStock() {
            String orderId = start("storefront_order", input("storefront_order", "cus_web_declined",
                    List.of(line("GADGET-1", 1)), simulate("payment_declined")));

            awaitStatus(orderId, "declined")
                    .jsonPath("$.reason").isEqualTo("Payment was declined")
                    .jsonPath("$.nodes.charge.branches[0]").isEqualTo("declined")
                    .jsonPath("$.nodes.reserve.status").isEqualTo("skipped")
                    .jsonPath("$.nodes.declined.status").isEqualTo("succeeded");
        }

        @Test
        void givenStockIsShortAfterTheCharge_whenReserving_thenTheChargeIsRefundedAndTheOrderDeclined() {
            String orderId = start("storefront_order", input("storefront_order", "cus_web_refunded",
                    List.of(line("GADGET-1", 1)), simulate("out_of_stock")));

            awaitStatus(orderId, "declined")
                    .jsonPath("$.reason").isEqualTo("Out of stock; the charge was refunded")
                    .jsonPath("$.nodes.reserve.branches[0]").isEqualTo("out_of_stock")
                    .jsonPath("$.nodes.refund.output.refunded").isEqualTo(true)
                    .jsonPath("$.nodes.refunded.status").isEqualTo("succeeded")
                    .jsonPath("$.nodes.ship.status").isEqualTo("skipped");
        }

        @Test
        void givenStockIsShortAndTheRefundFails_whenRefunding_thenTheOrderEndsFailedWithNothingRolledBack() {
            String orderId = start("storefront_order", input("storefront_order", "cus_web_refund_failed",
                    List.of(line("GADGET-1", 1)), simulate("out_of_stock", "refund_failed")));

            awaitRollback(orderId, "failed")
                    .jsonPath("$.status").isEqualTo("failed")
                    .jsonPath("$.reason").isEqualTo("Out of stock and the refund failed")
                    .jsonPath("$.rollback.error")
                    .isEqualTo("The run ended at a failed End node; nothing was rolled back")
                    .jsonPath("$.nodes.refund.branches[0]").isEqualTo("failed")
                    .jsonPath("$.nodes.refund.output.refunded").isEqualTo(false)
                    .jsonPath("$.nodes.refund_failed.status").isEqualTo("succeeded")
                    .jsonPath("$.nodes.charge.status").isEqualTo("succeeded");
        }

        @Test
        void givenTheCarrierIsDown_whenShippingFailsEveryRetry_thenStockAndChargeAreRolledBack() {
            String orderId = start("storefront_order", input("storefront_order", "cus_web_carrier",
                    List.of(line("GADGET-1", 1)), simulate("carrier_down")));

            awaitStatus(orderId, "rolled_back")
                    .jsonPath("$.reason").isEqualTo("Ship order " + orderId
                            + " failed: Carrier unreachable (simulated carrier_down)")
                    .jsonPath("$.rollback.outcome").isEqualTo("complete")
                    .jsonPath("$.nodes.ship.status").isEqualTo("failed")
                    .jsonPath("$.nodes.ship.error").isEqualTo("Carrier unreachable (simulated carrier_down)")
                    .jsonPath("$.nodes.reserve.status").isEqualTo("rolled_back")
                    .jsonPath("$.nodes.charge.status").isEqualTo("rolled_back");
        }

        @Test
        void givenTheCarrierIsDownAndCompensationFails_whenShippingFails_thenTheOrderStaysFailedWithTheRollbackError() {
            String orderId = start("storefront_order", input("storefront_order", "cus_web_stuck",
                    List.of(line("GADGET-1", 1)), simulate("carrier_down", "compensation_failed")));

            awaitRollback(orderId, "failed")
                    .jsonPath("$.status").isEqualTo("failed")
                    .jsonPath("$.rollback.error").isEqualTo("Compensating reserve failed: Could not release stock hold "
                            + "hold-" + orderId + "-g1-reserve-a1 (simulated compensation_failed)")
                    .jsonPath("$.nodes.ship.status").isEqualTo("failed")
                    .jsonPath("$.nodes.charge.status").isEqualTo("succeeded");
        }

        @Test
        void givenShippingIsRetrying_whenCancelled_thenTheHeldStockIsReleased() {
            String orderId = start("storefront_order", input("storefront_order", "cus_web_cancel",
                    List.of(line("GADGET-1", 1)), simulate("carrier_down")));
            await().atMost(SETTLES).untilAsserted(() -> read(orderId)
                    .jsonPath("$.nodes.ship.error").isEqualTo("Carrier unreachable (simulated carrier_down)"));

            cancel(orderId, "Customer gave up waiting");

            awaitTimeline(orderId, "Compensated: 1 held stock released, 0 authorizations voided, 0 shipments cancelled")
                    .jsonPath("$.status").isEqualTo("cancelled")
                    .jsonPath("$.reason").isEqualTo("Customer gave up waiting")
                    .jsonPath("$.rollback").doesNotExist();
        }
    }

    // ---- driving the API as a user would -----------------------------------------------------------------------

    private static String start(String flowId, Map<String, Object> input) {
        return start(flowId, input, Map.of());
    }

    private static String start(String flowId, Map<String, Object> input, Map<String, Object> vars) {
        Map<?, ?> created = http.post().uri("/api/v1/orders").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("flowId", flowId, "input", input, "vars", vars)).exchange()
                .expectStatus().isEqualTo(HttpStatus.CREATED)
                .expectBody(Map.class).returnResult().getResponseBody();
        return (String) created.get("orderId");
    }

    private static void decide(String orderId, String nodeId, String decision, String by, String note) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("decision", decision);
        body.put("by", by);
        if (note != null) {
            body.put("note", note);
        }
        http.post().uri("/api/v1/orders/{id}/approvals/{node}", orderId, nodeId)
                .contentType(MediaType.APPLICATION_JSON).bodyValue(body).exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.ok").isEqualTo(true);
    }

    private static WebTestClient.BodyContentSpec deliver(String orderId, String event, Map<String, Object> payload) {
        return http.post().uri("/api/v1/orders/{id}/events", orderId).contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("event", event, "payload", payload)).exchange()
                .expectStatus().isOk()
                .expectBody();
    }

    private static void cancel(String orderId, String reason) {
        http.post().uri("/api/v1/orders/{id}/cancel", orderId).contentType(MediaType.APPLICATION_JSON)
                .bodyValue(reason == null ? Map.of() : Map.of("reason", reason)).exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.ok").isEqualTo(true);
    }

    private static WebTestClient.BodyContentSpec read(String orderId) {
        return http.get().uri("/api/v1/orders/{id}", orderId).exchange()
                .expectStatus().isOk()
                .expectBody();
    }

    /** Reads the order until it shows {@code status}, then answers its live state for the details. */
    private static WebTestClient.BodyContentSpec awaitStatus(String orderId, String status) {
        await().atMost(SETTLES).untilAsserted(() -> read(orderId).jsonPath("$.status").isEqualTo(status));
        return read(orderId);
    }

    /** Reads the order until its rollback has settled with {@code outcome}. */
    private static WebTestClient.BodyContentSpec awaitRollback(String orderId, String outcome) {
        await().atMost(SETTLES).untilAsserted(() -> read(orderId).jsonPath("$.rollback.outcome").isEqualTo(outcome));
        return read(orderId);
    }

    /** Reads the order until the node's wait is open (the seeded flows wait at one node at a time). */
    private static WebTestClient.BodyContentSpec awaitWaitAt(String orderId, String nodeId) {
        await().atMost(SETTLES).untilAsserted(() -> read(orderId).jsonPath("$.waits[0].nodeId").isEqualTo(nodeId));
        return read(orderId);
    }

    /** Reads the order until its timeline has an entry with {@code message}. */
    private static WebTestClient.BodyContentSpec awaitTimeline(String orderId, String message) {
        String entry = "$.timeline[?(@.message == '" + message + "')]";
        await().atMost(SETTLES).untilAsserted(() -> read(orderId).jsonPath(entry).exists());
        return read(orderId);
    }

    // ---- start inputs ------------------------------------------------------------------------------------------

    private static Map<String, Object> input(String type, String customerId, List<Map<String, Object>> lines,
                                             Map<String, Object> meta) {
        Map<String, Object> input = new LinkedHashMap<>();
        input.put("type", type);
        input.put("customerId", customerId);
        input.put("currency", "USD");
        input.put("lines", lines);
        input.put("meta", meta);
        return input;
    }

    /** An order that arrives as text (an email, a purchase order) for the Extract order node. */
    private static Map<String, Object> document(String type, String customerId, String text, Map<String, Object> meta) {
        Map<String, Object> input = input(type, customerId, List.of(), meta);
        input.put("documentText", text);
        return input;
    }

    private static Map<String, Object> line(String sku, int qty) {
        return Map.of("sku", sku, "qty", qty);
    }

    private static Map<String, Object> line(String sku, int qty, double unitPrice) {
        return Map.of("sku", sku, "qty", qty, "unitPrice", unitPrice);
    }

    /** Meta that forces failure paths in the mock connectors. */
    private static Map<String, Object> simulate(String... values) {
        return Map.of("shipTo", "1 Main Street, Springfield", "simulate", List.of(values));
    }
}
