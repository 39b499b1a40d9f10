package io.orderflow.runner.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.runner.connectors.ConnectorCall;
import io.orderflow.runner.connectors.Connectors;
import io.orderflow.runner.connectors.InventoryConnector;
import io.orderflow.runner.connectors.PaymentConnector;
import io.orderflow.runner.flows.FlowFiles;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.NodeDefinition;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.Rollback;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Given / when / then scenarios over the runner topology, one flow behaviour each, asserting what the runner sends. The
 * rules behind them as facts, decided without Kafka: {@link RunDeciderScenarioTest}.
 */
class RunScenariosTest {

    private RunnerHarness runner = new RunnerHarness();

    @AfterEach
    void close() {
        runner.close();
    }

    private static final String BIG_REQUEST = """
            {"customerId":"cus_1","documentText":"Hi, please order:\\n3 x LAPTOP-14 Laptops\\n2 x MONITOR-27\\nThanks"}""";

    @Test
    void approvalWaitsThenContinuesOnApproved() {
        runner.start("ord_a", RunnerHarness.version("purchase_request", 1),
                RunnerHarness.order("ord_a", "purchase_request", BIG_REQUEST));

        RunReport.WaitRequested wait = runner.reportsOf(RunReport.WaitRequested.class).getFirst();
        assertThat(wait.request().kind()).isEqualTo("approval");
        assertThat(wait.request().event()).isEqualTo("approval");
        assertThat(wait.request().title()).isEqualTo("Approve order ord_a");
        assertThat(wait.request().assignee()).isEqualTo("manager");
        assertThat(wait.request().timeoutMs()).isEqualTo(Duration.ofDays(2).toMillis());
        assertThat(wait.request().amount()).isEqualByComparingTo("4555.00");
        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.WAITING);

        runner.send(new NodeTask.ResumeNode("ord_a", "ord_a.1", "approval", "approved",
                Json.MAPPER.readTree("{\"decision\":\"approved\",\"by\":\"ann\",\"note\":\"ok\",\"outcome\":\"approved\"}")));

        RunReport.Progress last = runner.lastProgress();
        assertThat(last.status()).isEqualTo(OrderStatus.COMPLETED);
        RunReport.NodeDetail approval = runner.reportsOf(RunReport.NodeDetail.class).stream()
                .filter(d -> d.nodeId().equals("approval") && d.patch().status() == NodeStatus.SUCCEEDED).findFirst()
                .orElseThrow();
        assertThat(approval.patch().output().get("by").asString()).isEqualTo("ann");
        assertThat(approval.patch().branches()).containsExactly("approved");
    }

    @Test
    void escalationGoesToTheDirectorAndRejectionDeclines() {
        runner.start("ord_b", RunnerHarness.version("purchase_request", 1),
                RunnerHarness.order("ord_b", "purchase_request", BIG_REQUEST));
        runner.send(new NodeTask.ResumeNode("ord_b", "ord_b.1", "approval", "escalated", Json.object()));

        assertThat(runner.reportsOf(RunReport.WaitRequested.class)).extracting(w -> w.request().assignee())
                .containsExactly("manager", "director");

        runner.send(new NodeTask.ResumeNode("ord_b", "ord_b.1", "director", "rejected",
                Json.MAPPER.readTree("{\"decision\":\"rejected\",\"by\":\"dan\"}")));

        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.DECLINED);
        assertThat(runner.lastProgress().reason()).isEqualTo("Rejected by an approver");
        assertThat(runner.eventNames()).containsExactly("order.declined");
    }

    @Test
    void aResumeForANodeThatIsNotWaitingIsIgnored() {
        runner.start("ord_c", RunnerHarness.version("purchase_request", 1),
                RunnerHarness.order("ord_c", "purchase_request", BIG_REQUEST));
        int before = runner.allReports.size();

        runner.send(new NodeTask.ResumeNode("ord_c", "ord_c.1", "director", "approved", Json.object()));

        assertThat(runner.allReports).hasSize(before);
    }

    @Test
    void smallRequestSkipsApprovalAndCompletes() {
        runner.start("ord_d", RunnerHarness.version("purchase_request", 1), RunnerHarness.order("ord_d",
                "purchase_request", "{\"documentText\":\"2 x PAPER-A4 Paper\"}"));

        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.COMPLETED);
        assertThat(runner.lastProgress().order().get("lines").get(0).get("unitPrice").decimalValue())
                .isEqualByComparingTo("6.75");
        assertThat(runner.lastProgress().nodes()).containsEntry("approval", NodeStatus.SKIPPED);
    }

    @Test
    void priceListIsConvertedIntoTheOrderCurrency() {
        runner.start("ord_e", RunnerHarness.version("storefront_order", 1), RunnerHarness.order("ord_e",
                "storefront_order", "{\"currency\":\"EUR\",\"lines\":[{\"sku\":\"WIDGET-1\",\"qty\":2}]}"));

        var order = runner.lastProgress().order();
        assertThat(order.get("subtotal").decimalValue()).isEqualByComparingTo("23.00"); // 2 × 12.50 × 0.92
        assertThat(order.get("fxRate").decimalValue()).isEqualByComparingTo("0.92");
        assertThat(order.get("total").decimalValue()).isEqualByComparingTo("24.84");
        assertThat(order.get("baseTotal").decimalValue()).isEqualByComparingTo("27.00");
    }

    @Test
    void unknownSkuWithoutPriceFailsTheRun() {
        runner.start("ord_f", RunnerHarness.version("storefront_order", 1), RunnerHarness.order("ord_f",
                "storefront_order", "{\"lines\":[{\"sku\":\"NOPE\",\"qty\":1}]}"));

        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.FAILED);
        assertThat(runner.lastProgress().reason()).isEqualTo("Price order ord_f failed: No price for SKU NOPE in the price list");
        assertThat(runner.eventNames()).containsExactly("order.failed");
    }

    @Test
    void paymentDeclinedTakesTheDeclinedBranch() {
        runner.start("ord_g", RunnerHarness.version("storefront_order", 1), storefront("ord_g", "payment_declined"));

        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.DECLINED);
        assertThat(runner.lastProgress().reason()).isEqualTo("Payment was declined");
        assertThat(runner.eventNames()).containsExactly("order.declined");
    }

    @Test
    void outOfStockRefundsTheCharge() {
        runner.start("ord_h", RunnerHarness.version("storefront_order", 1), storefront("ord_h", "out_of_stock"));

        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.DECLINED);
        assertThat(runner.eventNames()).containsExactly("order.paid", "order.refunded", "order.declined");
    }

    @Test
    void outOfStockRefundsThePaymentTheChargeTook() {
        List<String> refunded = new ArrayList<>();
        Connectors mock = Connectors.mock();
        runner.close();
        runner = new RunnerHarness(new Connectors(new RecordingRefunds(mock.payment(), refunded), mock.inventory(),
                mock.shipping(), mock.invoicing()));

        runner.start("ord_w", RunnerHarness.version("storefront_order", 1), storefront("ord_w", "out_of_stock"));

        String paymentId = outputs(runner.allReports, "charge", "paymentId").getFirst();
        assertThat(paymentId).isEqualTo("pay-ord_w-g1-charge-a1");
        assertThat(refunded).containsExactly(paymentId);
        assertThat(outputs(runner.allReports, "refund", "paymentId")).containsExactly(paymentId);
    }

    @Test
    void anOrderDeclinedAfterReservingGivesItsStockBackAtTheEnd() {
        List<String> releases = new ArrayList<>();
        Connectors mock = Connectors.mock();
        runner.close();
        runner = new RunnerHarness(new Connectors(mock.payment(), new RecordingReleases(mock.inventory(), releases),
                mock.shipping(), mock.invoicing()));
        var order = RunnerHarness.order("ord_x", "b2b_order", "{\"lines\":[{\"sku\":\"GADGET-1\",\"qty\":2}]}");
        order.putObject("meta").put("simulate", "payment_declined");

        runner.start("ord_x", RunnerHarness.version("b2b_order", 1), order);
        runner.send(new NodeTask.ResumeNode("ord_x", "ord_x.1", "await_payment", "received", Json.object()));

        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.DECLINED);
        assertThat(releases).containsExactly("hold-ord_x-g1-reserve-a1");
        assertThat(runner.instance("ord_x").holds()).allSatisfy(hold -> assertThat(hold.open()).isFalse());
        assertThat(runner.reportsOf(RunReport.NodeDetail.class).getLast().patch().summary())
                .isEqualTo("Outcome: declined (Payment was declined); 1 held stock released, 0 authorizations voided, "
                        + "0 shipments cancelled");
    }

    @Test
    void aCompletedOrderKeepsWhatItHolds() {
        List<String> releases = new ArrayList<>();
        Connectors mock = Connectors.mock();
        runner.close();
        runner = new RunnerHarness(new Connectors(mock.payment(), new RecordingReleases(mock.inventory(), releases),
                mock.shipping(), mock.invoicing()));

        runner.start("ord_y", RunnerHarness.version("purchase_request", 1), RunnerHarness.order("ord_y",
                "purchase_request", "{\"lines\":[{\"sku\":\"PAPER-A4\",\"qty\":2}]}"));

        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.COMPLETED);
        assertThat(releases).as("the reserved paper is the request's allocation").isEmpty();
    }

    @Test
    void refundFailedTakesTheFailedBranch() {
        runner.start("ord_i", RunnerHarness.version("storefront_order", 1),
                storefront("ord_i", "out_of_stock", "refund_failed"));

        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.FAILED);
        assertThat(runner.eventNames()).containsExactly("order.paid", "order.failed");
        assertThat(runner.allEvents.getLast().data().get("outcome").asString()).isEqualTo("failed");

        runner.send(new NodeTask.QueryInstance("ord_i", "ord_i.1", 1));
        RunReport.InstanceStatus status = runner.reportsOf(RunReport.InstanceStatus.class).getLast();
        assertThat(status.state()).isEqualTo("complete");
        assertThat(status.rollback().outcome()).as("nothing was rolled back").isEqualTo("failed");
    }

    @Test
    void carrierDownRetriesWithBackoffThenCompensatesInReverse() {
        runner.start("ord_j", RunnerHarness.version("storefront_order", 1), storefront("ord_j", "carrier_down"));

        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.RUNNING);
        assertThat(runner.instance("ord_j").timer().due()).isEqualTo(RunnerHarness.START.toEpochMilli() + 2000);

        runner.advance(Duration.ofMillis(1500));
        assertThat(attemptsOf("ship")).isEqualTo(1);
        runner.advance(Duration.ofMillis(500));
        assertThat(attemptsOf("ship")).as("second attempt after 2 s").isEqualTo(2);
        assertThat(runner.instance("ord_j").timer().due()).isEqualTo(RunnerHarness.START.toEpochMilli() + 6000);
        runner.advance(Duration.ofSeconds(4));

        RunReport.Progress last = runner.lastProgress();
        assertThat(last.status()).isEqualTo(OrderStatus.FAILED);
        assertThat(last.nodes()).containsEntry("ship", NodeStatus.FAILED)
                .containsEntry("reserve", NodeStatus.ROLLED_BACK).containsEntry("charge", NodeStatus.ROLLED_BACK)
                .containsEntry("pricing", NodeStatus.ROLLED_BACK);
        List<String> rolledBack = runner.reportsOf(RunReport.NodeDetail.class).stream()
                .filter(d -> d.patch().status() == NodeStatus.ROLLED_BACK).map(RunReport.NodeDetail::nodeId).toList();
        assertThat(rolledBack).containsExactly("reserve", "charge", "tax", "pricing");
        var failed = runner.allEvents.getLast();
        assertThat(failed.event()).isEqualTo("order.failed");
        assertThat(failed.data().get("node").get("id").asString()).isEqualTo("ship");
        assertThat(failed.data().get("node").get("error").asString()).contains("carrier_down");
        assertThat(failed.data().get("reason").asString()).startsWith("Ship order ord_j failed: ");

        runner.send(new NodeTask.QueryInstance("ord_j", "ord_j.1", 1));
        RunReport.InstanceStatus status = runner.reportsOf(RunReport.InstanceStatus.class).getLast();
        assertThat(status.state()).isEqualTo("errored");
        assertThat(status.rollback()).isEqualTo(new Rollback("complete", null));
    }

    @Test
    void compensationFailedMakesTheRollbackFail() {
        runner.start("ord_k", RunnerHarness.version("storefront_order", 1),
                storefront("ord_k", "carrier_down", "compensation_failed"));
        runner.advance(Duration.ofSeconds(2));
        runner.advance(Duration.ofSeconds(4));

        runner.send(new NodeTask.QueryInstance("ord_k", "ord_k.1", 1));
        RunReport.InstanceStatus status = runner.reportsOf(RunReport.InstanceStatus.class).getLast();
        assertThat(status.state()).isEqualTo("errored");
        assertThat(status.rollback().outcome()).isEqualTo("failed");
        assertThat(status.rollback().error()).contains("reserve").contains("compensation_failed");
    }

    @Test
    void cancelWhileWaitingReleasesStockAndIgnoresLaterTasks() {
        runner.start("ord_l", RunnerHarness.version("b2b_order", 1), RunnerHarness.order("ord_l", "b2b_order",
                "{\"lines\":[{\"sku\":\"GADGET-1\",\"qty\":4}]}"));
        assertThat(runner.reportsOf(RunReport.WaitRequested.class).getFirst().request().event())
                .isEqualTo("payment.received");
        assertThat(runner.eventNames()).containsExactly("order.invoiced");

        runner.send(new NodeTask.TerminateRun("ord_l", "ord_l.1", "Cancelled via API"));

        assertThat(runner.reportsOf(RunReport.Compensated.class))
                .containsExactly(new RunReport.Compensated("ord_l", "ord_l.1", 1, 0, 0));
        int before = runner.allReports.size();
        runner.send(new NodeTask.ResumeNode("ord_l", "ord_l.1", "await_payment", "received", Json.object()));
        runner.send(new NodeTask.Advance("ord_l", "ord_l.1"));
        assertThat(runner.allReports).hasSize(before);
        runner.send(new NodeTask.QueryInstance("ord_l", "ord_l.1", 1));
        assertThat(runner.reportsOf(RunReport.InstanceStatus.class).getLast().state()).isEqualTo("terminated");
    }

    @Test
    void cancelDuringTheSupplierLeadTimeVoidsTheAuthorization() {
        runner.start("ord_m", RunnerHarness.version("reorder", 1), RunnerHarness.order("ord_m", "reorder",
                "{\"lines\":[{\"sku\":\"TONER-K\",\"qty\":10}]}"));
        assertThat(runner.instance("ord_m").state()).isEqualTo(RunInstance.State.SLEEPING);

        runner.send(new NodeTask.TerminateRun("ord_m", "ord_m.1", "no longer needed"));
        runner.advance(Duration.ofDays(1));

        assertThat(runner.reportsOf(RunReport.Compensated.class).getLast().voided()).isEqualTo(1);
        assertThat(runner.lastProgress().nodes()).containsEntry("capture", NodeStatus.PENDING);
    }

    @Test
    void anArchivedOrdersInstanceAndItsTimerAreDroppedAndLaterTasksFindNothing() {
        // given a reorder sleeping through its supplier lead time: a stored instance with a timer
        runner.start("ord_f", RunnerHarness.version("reorder", 1), RunnerHarness.order("ord_f", "reorder",
                "{\"lines\":[{\"sku\":\"TONER-K\",\"qty\":10}]}"));
        assertThat(runner.instance("ord_f").timer()).isNotNull();
        int before = runner.allReports.size();

        // when the processor archives the order
        runner.send(new NodeTask.ForgetRun("ord_f"));

        // then the instance is gone, its timer fires nothing, and a status query finds no instance
        assertThat(runner.instance("ord_f")).isNull();
        runner.advance(Duration.ofDays(1));
        assertThat(runner.allReports).hasSize(before);
        runner.send(new NodeTask.QueryInstance("ord_f", "ord_f.1", 1));
        assertThat(runner.reportsOf(RunReport.InstanceStatus.class).getLast().generation())
                .as("no instance: generation 0").isZero();
    }

    @Test
    void paymentReceivedContinuesTheB2bOrderAndStoresThePayloadInVars() {
        runner.start("ord_n", RunnerHarness.version("b2b_order", 1), RunnerHarness.order("ord_n", "b2b_order",
                "{\"lines\":[{\"sku\":\"GADGET-1\",\"qty\":1}]}"));
        runner.send(new NodeTask.ResumeNode("ord_n", "ord_n.1", "await_payment", "received",
                Json.MAPPER.readTree("{\"event\":\"payment.received\",\"at\":1,\"amount\":58.8}")));

        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.COMPLETED);
        assertThat(runner.lastProgress().vars().get("payment_received").get("amount").asDouble()).isEqualTo(58.8);
        assertThat(runner.eventNames()).containsExactly("order.invoiced", "order.paid", "order.shipped",
                "order.completed");
    }

    @Test
    void controlWaitSleepsScaledOnTheTimerStore() {
        runner.start("ord_o", RunnerHarness.version("reorder", 1), RunnerHarness.order("ord_o", "reorder",
                "{\"lines\":[{\"sku\":\"TONER-K\",\"qty\":1}]}"));
        // 3 days / 1440 = 180 s
        assertThat(runner.instance("ord_o").timer().due()).isEqualTo(RunnerHarness.START.toEpochMilli() + 180_000);

        runner.advance(Duration.ofSeconds(179));
        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.RUNNING);
        runner.advance(Duration.ofSeconds(1));

        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.COMPLETED);
        RunReport.NodeDetail slept = runner.reportsOf(RunReport.NodeDetail.class).stream()
                .filter(d -> d.nodeId().equals("lead_time") && d.patch().status() == NodeStatus.SUCCEEDED)
                .findFirst().orElseThrow();
        assertThat(slept.patch().startedAt()).as("control.wait is not timed").isNull();
    }

    @Test
    void longRunsContinueAsANewInstance() {
        runner.close();
        runner = new RunnerHarness(new RunSettings(1440, 6, 50));
        runner.send(new NodeTask.StartRun("ord_p", "ord_p.1", RunnerHarness.version("subscription", 1),
                RunnerHarness.order("ord_p", "subscription", "{\"lines\":[{\"sku\":\"SAAS-SEAT\",\"qty\":1}]}"),
                Json.MAPPER.readTree("{\"term\":3}")));
        for (int period = 0; period < 3; period++) {
            runner.advance(Duration.ofMinutes(30));
        }

        List<RunReport.Continued> continued = runner.reportsOf(RunReport.Continued.class);
        assertThat(continued).isNotEmpty();
        assertThat(continued.getFirst()).isEqualTo(new RunReport.Continued("ord_p", "ord_p.2", 2, "ord_p.1"));
        List<RunReport.Progress> generation2 = runner.reportsOf(RunReport.Progress.class).stream()
                .filter(p -> p.generation() == 2).toList();
        assertThat(generation2.getFirst().seq()).as("sequence resets").isEqualTo(1);
        assertThat(generation2.getFirst().instanceId()).isEqualTo("ord_p.2");
        RunReport.Progress last = runner.lastProgress();
        assertThat(last.status()).isEqualTo(OrderStatus.COMPLETED);
        assertThat(last.vars().get("renewals").asInt()).isEqualTo(3);
        assertThat(runner.eventNames().stream().filter("order.paid"::equals)).hasSize(3);
    }

    @Test
    void runningOrdersStayPinnedToTheirVersion() {
        FlowDefinition v1 = FlowFiles.builtIn("storefront_order");
        List<NodeDefinition> nodes = new ArrayList<>(v1.nodes());
        nodes.replaceAll(n -> n.id().equals("completed") ? new NodeDefinition("completed", "end", "Done",
                Json.MAPPER.readTree("{\"outcome\":\"completed\",\"reason\":\"version two\"}"), null) : n);
        FlowDefinition v2 = new FlowDefinition(v1.id(), v1.name(), v1.description(), v1.orderType(), nodes,
                v1.edges());

        runner.start("ord_q1", RunnerHarness.version(v1, 1), storefront("ord_q1"));
        runner.start("ord_q2", RunnerHarness.version(v2, 2), storefront("ord_q2"));

        var ends = runner.reportsOf(RunReport.Progress.class).stream()
                .filter(p -> p.status() == OrderStatus.COMPLETED).toList();
        assertThat(ends).extracting(RunReport.Progress::orderId, RunReport.Progress::reason)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("ord_q1", null),
                        org.assertj.core.groups.Tuple.tuple("ord_q2", "version two"));
    }

    @Test
    void manyStepsArePacedAcrossAdvanceTasks() {
        runner.close();
        runner = new RunnerHarness(new RunSettings(1440, 10_000, 2));
        runner.start("ord_r", RunnerHarness.version("storefront_order", 1), storefront("ord_r"));

        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.COMPLETED);
        assertThat(runner.instance("ord_r").steps()).isEqualTo(7);
    }

    @Test
    void b2bOverCreditNeedsFinanceAndUnpaidOrdersAreCancelled() {
        runner.start("ord_s", RunnerHarness.version("b2b_order", 1), RunnerHarness.order("ord_s", "b2b_order",
                "{\"customerId\":\"acme\",\"lines\":[{\"sku\":\"LAPTOP-14\",\"qty\":20}]}"));
        RunReport.WaitRequested override = runner.reportsOf(RunReport.WaitRequested.class).getFirst();
        assertThat(override.request().title()).isEqualTo("Credit override for acme");
        assertThat(override.request().assignee()).isEqualTo("finance");

        runner.send(new NodeTask.ResumeNode("ord_s", "ord_s.1", "credit", "approved", Json.object()));
        assertThat(runner.reportsOf(RunReport.WaitRequested.class)).as("only the waiting node resumes").hasSize(1);
        runner.send(new NodeTask.ResumeNode("ord_s", "ord_s.1", "override", "approved", Json.object()));
        runner.send(new NodeTask.ResumeNode("ord_s", "ord_s.1", "await_payment", "timeout", Json.object()));

        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.CANCELLED);
        assertThat(runner.lastProgress().reason()).isEqualTo("Payment was not received within 30 days");
        assertThat(runner.eventNames()).containsExactly("order.invoiced", "order.cancelled");
    }

    @Test
    void reorderSendsOrderPaidWhenItsAuthorizationAndItsCaptureFinishOk() {
        // the contract: order.paid when "commerce.capture_payment finishes on its ok branch", authorize-only or not
        runner.start("ord_t", RunnerHarness.version("reorder", 1), RunnerHarness.order("ord_t", "reorder",
                "{\"lines\":[{\"sku\":\"TONER-K\",\"qty\":2}]}"));
        assertThat(runner.eventNames()).containsExactly("order.paid");
        assertThat(runner.allEvents.getFirst().data().get("node").get("id").asString()).isEqualTo("authorize");

        runner.advance(Duration.ofMinutes(3));

        assertThat(runner.eventNames()).containsExactly("order.paid", "order.paid", "order.shipped",
                "order.invoiced", "order.completed");
        var paid = runner.allEvents.get(1);
        assertThat(paid.data().get("node").get("id").asString()).isEqualTo("capture");
        assertThat(paid.data().get("node").get("output").get("authorizationId").asString())
                .isEqualTo("auth-ord_t-g1-authorize-a1");
    }

    @Test
    void subscriptionDeclinedAtTheFirstCharge() {
        var order = RunnerHarness.order("ord_u", "subscription", "{\"lines\":[{\"sku\":\"SAAS-SEAT\",\"qty\":5}]}");
        order.putObject("meta").put("simulate", "payment_declined");
        runner.start("ord_u", RunnerHarness.version("subscription", 1), order);

        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.DECLINED);
        assertThat(runner.lastProgress().reason()).isEqualTo("Renewal payment was declined");
    }

    @Test
    void eachSubscriptionPeriodChargesAndInvoicesWithIdsOfItsOwn() {
        startSubscription("ord_x", 2);
        runner.advance(RENEWAL);
        runner.advance(RENEWAL);

        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.COMPLETED);
        assertThat(outputs(runner.allReports, "charge", "paymentId"))
                .containsExactly("pay-ord_x-g1-charge-a1", "pay-ord_x-g1-charge-r2-a1");
        assertThat(outputs(runner.allReports, "invoice", "invoiceId"))
                .containsExactly("inv-ord_x-g1-invoice-a1", "inv-ord_x-g1-invoice-r2-a1");
    }

    @Test
    void aReplayedRenewalAsksForTheSameIds() {
        startSubscription("ord_y", 2);
        RunInstance.Timer renewal = runner.instance("ord_y").timer();

        // the runner crashed before committing the renewal: once restarted, it fires it again on the stored instance
        RunDecision first = runner.decider.fire(runner.instance("ord_y"), renewal);
        RunDecision replay = runner.decider.fire(runner.instance("ord_y"), renewal);

        assertThat(outputs(replay.reports(), "charge", "paymentId"))
                .isEqualTo(outputs(first.reports(), "charge", "paymentId"))
                .containsExactly("pay-ord_y-g1-charge-r2-a1");
        assertThat(outputs(replay.reports(), "invoice", "invoiceId"))
                .isEqualTo(outputs(first.reports(), "invoice", "invoiceId"))
                .containsExactly("inv-ord_y-g1-invoice-r2-a1");
    }

    @Test
    void summariesKeepTwoDecimalsOnceTheInstanceIsReloaded() {
        startSubscription("ord_z", 2);
        runner.advance(RENEWAL); // the second period runs on the instance read back from the store

        assertThat(succeeded(runner.allReports, "charge")).extracting(d -> d.patch().summary())
                .containsExactly("Charged 165.00 USD", "Charged 165.00 USD");
        assertThat(succeeded(runner.allReports, "invoice").getLast().patch().summary())
                .isEqualTo("Invoice inv-ord_z-g1-invoice-r2-a1 for 165.00 USD");
    }

    @Test
    void subscriptionChargeTitlesNameThePeriodAndTheTermEndsAfterItsPeriods() {
        startSubscription("ord_sub", 2);
        runner.advance(RENEWAL);
        runner.advance(RENEWAL);

        assertThat(succeeded(runner.allReports, "charge")).extracting(d -> d.log().message())
                .containsExactly("Charge first period: Charged 165.00 USD", "Charge renewal 1: Charged 165.00 USD");
        RunReport.Progress last = runner.lastProgress();
        assertThat(last.status()).isEqualTo(OrderStatus.COMPLETED);
        assertThat(last.vars().get("renewals").asInt()).isEqualTo(2);
        assertThat(runner.eventNames()).containsExactly("order.paid", "order.invoiced", "order.paid",
                "order.invoiced", "order.completed");
    }

    @Test
    void policyFailureDeclinesWithTheViolationsAsReason() {
        var order = RunnerHarness.order("ord_v", "purchase_request", "{\"documentText\":\"1 x PAPER-A4\"}");
        order.putObject("meta").put("shipTo", "PO Box 7, Springfield");
        runner.start("ord_v", RunnerHarness.version("purchase_request", 1), order);

        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.DECLINED);
        assertThat(runner.lastProgress().reason()).isEqualTo("Cannot ship to a P.O. box");
        assertThat(runner.lastProgress().edges()).containsEntry("e6", io.orderflow.schemas.model.EdgeState.ACTIVE)
                .containsEntry("e5", io.orderflow.schemas.model.EdgeState.INACTIVE);
    }

    /** The subscription's 30-day renewal wait, scaled by 1440. */
    private static final Duration RENEWAL = Duration.ofMinutes(30);

    /** Starts a subscription of {@code term} periods of 5 seats (165.00 USD each); it charges the first at once. */
    private void startSubscription(String orderId, int term) {
        runner.send(new NodeTask.StartRun(orderId, orderId + ".1", RunnerHarness.version("subscription", 1),
                RunnerHarness.order(orderId, "subscription", "{\"lines\":[{\"sku\":\"SAAS-SEAT\",\"qty\":5}]}"),
                Json.MAPPER.readTree("{\"term\":" + term + "}")));
    }

    /** The details of each successful run of {@code nodeId}, in order. */
    private static List<RunReport.NodeDetail> succeeded(List<RunReport> reports, String nodeId) {
        return reports.stream()
                .flatMap(r -> r.unpacked().stream())
                .filter(RunReport.NodeDetail.class::isInstance).map(RunReport.NodeDetail.class::cast)
                .filter(d -> d.nodeId().equals(nodeId) && d.patch().status() == NodeStatus.SUCCEEDED).toList();
    }

    /** Output {@code field} of each successful run of {@code nodeId}, in order. */
    private static List<String> outputs(List<RunReport> reports, String nodeId, String field) {
        return succeeded(reports, nodeId).stream().map(d -> d.patch().output().get(field).asString()).toList();
    }

    /** The mock payment connector, remembering which payment each refund was for. */
    private record RecordingRefunds(PaymentConnector payment, List<String> refunded) implements PaymentConnector {

        @Override
        public Result authorize(ConnectorCall call, BigDecimal amount, String currency) {
            return payment.authorize(call, amount, currency);
        }

        @Override
        public Result capture(ConnectorCall call, String authorizationId) {
            return payment.capture(call, authorizationId);
        }

        @Override
        public void voidAuthorization(ConnectorCall call, String authorizationId) {
            payment.voidAuthorization(call, authorizationId);
        }

        @Override
        public Result refund(ConnectorCall call, String paymentId, BigDecimal amount, String currency) {
            refunded.add(paymentId);
            return payment.refund(call, paymentId, amount, currency);
        }
    }

    /** The mock inventory, remembering which holds were released. */
    private record RecordingReleases(InventoryConnector inventory, List<String> released)
            implements InventoryConnector {

        @Override
        public Reservation reserve(ConnectorCall call, List<Line> lines) {
            return inventory.reserve(call, lines);
        }

        @Override
        public void release(ConnectorCall call, String holdId) {
            released.add(holdId);
            inventory.release(call, holdId);
        }

        @Override
        public List<Line> belowReorderPoint() {
            return inventory.belowReorderPoint();
        }
    }

    private int attemptsOf(String nodeId) {
        return runner.instance(runner.allReports.getLast().orderId()).attempts().getOrDefault(nodeId, 0);
    }

    private static tools.jackson.databind.node.ObjectNode storefront(String orderId, String... simulate) {
        var order = RunnerHarness.order(orderId, "storefront_order",
                "{\"lines\":[{\"sku\":\"WIDGET-1\",\"qty\":1,\"unitPrice\":10}]}");
        order.putObject("meta").set("simulate", Json.tree(List.of(simulate)));
        return order;
    }
}
