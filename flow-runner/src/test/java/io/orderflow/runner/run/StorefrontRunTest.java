package io.orderflow.runner.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.reports.RunReport;
import java.math.BigDecimal;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The walking skeleton: a storefront order with explicit prices runs straight to End {@code completed}. */
class StorefrontRunTest {

    private final RunnerHarness runner = new RunnerHarness();

    @AfterEach
    void close() {
        runner.close();
    }

    @Test
    void explicitPricesRunStraightToCompleted() {
        runner.start("ord_1", RunnerHarness.version("storefront_order", 1), RunnerHarness.order("ord_1",
                "storefront_order", """
                        {"customerId":"cus_9","lines":[{"sku":"ANY-SKU","name":"Mug","qty":2,"unitPrice":10.00}]}"""));

        RunReport.Progress last = runner.lastProgress();
        assertThat(last.status()).isEqualTo(OrderStatus.COMPLETED);
        assertThat(last.instanceId()).isEqualTo("ord_1.1");
        assertThat(last.generation()).isEqualTo(1);
        assertThat(last.nodes()).containsEntry("pricing", NodeStatus.SUCCEEDED)
                .containsEntry("ship", NodeStatus.SUCCEEDED).containsEntry("completed", NodeStatus.SUCCEEDED)
                .containsEntry("refund", NodeStatus.SKIPPED).containsEntry("declined", NodeStatus.SKIPPED);
        assertThat(last.edges()).containsEntry("e3", EdgeState.ACTIVE).containsEntry("e4", EdgeState.INACTIVE)
                .containsEntry("e8", EdgeState.ACTIVE);
        assertThat(last.order().get("subtotal").decimalValue()).isEqualByComparingTo("20.00");
        assertThat(last.order().get("tax").decimalValue()).isEqualByComparingTo("1.60");
        assertThat(last.order().get("total").decimalValue()).isEqualByComparingTo("21.60");
        assertThat(last.order().get("fxRate").decimalValue()).isEqualByComparingTo("1");
        assertThat(last.order().get("baseTotal").decimalValue()).isEqualByComparingTo("21.60");

        List<Long> seqs = runner.reportsOf(RunReport.Progress.class).stream().map(RunReport.Progress::seq).toList();
        assertThat(seqs).containsExactlyElementsOf(LongStream.rangeClosed(1, seqs.size()).boxed().toList());
        assertThat(runner.reportsOf(RunReport.WaitRequested.class)).isEmpty();
    }

    @Test
    void aTaskSendsOneSnapshotPerStatusItPassesThroughWhereItReachedItAndEveryNodeDetail() {
        runner.start("ord_5", RunnerHarness.version("storefront_order", 1), RunnerHarness.order("ord_5",
                "storefront_order", """
                        {"lines":[{"sku":"A","qty":1,"unitPrice":5}]}"""));

        List<RunReport.Progress> snapshots = runner.reportsOf(RunReport.Progress.class);
        assertThat(snapshots).extracting(RunReport.Progress::status)
                .containsExactly(OrderStatus.RUNNING, OrderStatus.COMPLETED);
        assertThat(snapshots).extracting(RunReport.Progress::seq).containsExactly(1L, 2L);
        assertThat(snapshots.getFirst().nodes()).as("the completed snapshot in the same record supersedes the "
                + "running one's plan").isNull();
        assertThat(snapshots.getFirst().order()).isNull();
        assertThat(snapshots.getLast().nodes()).containsEntry("invoice", NodeStatus.SUCCEEDED);
        assertThat(runner.reportsOf(RunReport.NodeDetail.class)).hasSize(7);
        assertThat(runner.sentReports).as("the task's reports travel as one record").singleElement()
                .isInstanceOf(RunReport.Batch.class);
        assertThat(runner.sentReports.getFirst().unpacked())
                .as("running is reported where the run reached it, before the work it started")
                .extracting(report -> report instanceof RunReport.NodeDetail d ? d.nodeId()
                        : report.getClass().getSimpleName())
                .containsExactly("Progress", "pricing", "tax", "charge", "reserve", "ship", "invoice", "completed",
                        "Progress");
        assertThat(snapshots).extracting(RunReport.Progress::at).as("when the run reached each status")
                .containsExactly(RunnerHarness.START.toEpochMilli(), RunnerHarness.START.toEpochMilli());
    }

    @Test
    void eachNodeReportsItsDetailWithTimingAndBranches() {
        runner.start("ord_2", RunnerHarness.version("storefront_order", 1), RunnerHarness.order("ord_2",
                "storefront_order", """
                        {"lines":[{"sku":"A","qty":1,"unitPrice":5}]}"""));

        List<RunReport.NodeDetail> details = runner.reportsOf(RunReport.NodeDetail.class);
        assertThat(details).extracting(RunReport.NodeDetail::nodeId)
                .containsExactly("pricing", "tax", "charge", "reserve", "ship", "invoice", "completed");
        RunReport.NodeDetail charge = details.get(2);
        assertThat(charge.patch().status()).isEqualTo(NodeStatus.SUCCEEDED);
        assertThat(charge.patch().startedAt()).isEqualTo(RunnerHarness.START.toEpochMilli());
        assertThat(charge.patch().endedAt()).isEqualTo(RunnerHarness.START.toEpochMilli());
        assertThat(charge.patch().branches()).containsExactly("ok");
        assertThat(charge.patch().output().get("paymentId").asString()).isEqualTo("pay-ord_2-g1-charge-a1");
        assertThat(charge.log().message()).startsWith("Charge card: Charged 5.40 USD");
        RunReport.NodeDetail end = details.getLast();
        assertThat(end.patch().startedAt()).as("End nodes are not timed").isNull();
        assertThat(end.patch().endedAt()).isNull();
    }

    @Test
    void sendsNodeAndEndEventsWithUniqueSteps() {
        runner.start("ord_3", RunnerHarness.version("storefront_order", 1), RunnerHarness.order("ord_3",
                "storefront_order", """
                        {"customerId":"cus_1","lines":[{"sku":"A","qty":3,"unitPrice":2.5}]}"""));

        assertThat(runner.eventNames())
                .containsExactly("order.paid", "order.shipped", "order.invoiced", "order.completed");
        assertThat(runner.allEvents).extracting(OrderEvent::step).doesNotHaveDuplicates()
                .allMatch(step -> step.startsWith("ord_3.1:"));
        OrderEvent paid = runner.allEvents.getFirst();
        assertThat(paid.data().get("node").get("id").asString()).isEqualTo("charge");
        assertThat(paid.data().get("node").get("type").asString()).isEqualTo("commerce.charge");
        assertThat(paid.data().get("order").get("total").decimalValue()).isEqualByComparingTo(new BigDecimal("8.10"));
        assertThat(paid.data().get("order").get("customerId").asString()).isEqualTo("cus_1");
        assertThat(paid.data().get("order").has("lines")).as("the summary, not the whole order").isFalse();
        OrderEvent completed = runner.allEvents.getLast();
        assertThat(completed.data().get("outcome").asString()).isEqualTo("completed");
        assertThat(completed.step()).isEqualTo("ord_3.1:completed:7");
    }

    @Test
    void aRepeatedStartDoesNothing() {
        var flow = RunnerHarness.version("storefront_order", 1);
        var order = RunnerHarness.order("ord_4", "storefront_order", """
                {"lines":[{"sku":"A","qty":1,"unitPrice":1}]}""");
        runner.start("ord_4", flow, order);
        int reports = runner.allReports.size();

        runner.start("ord_4", flow, order);

        assertThat(runner.allReports).hasSize(reports);
    }
}
