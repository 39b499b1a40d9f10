package io.orderflow.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.schemas.batches.BatchFilter;
import io.orderflow.schemas.batches.BatchRecord;
import io.orderflow.schemas.clock.ClockSetting;
import io.orderflow.schemas.commands.BatchAction;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.commands.CommandEnvelope;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.commands.OrderSource;
import io.orderflow.schemas.commands.RejectionKind;
import io.orderflow.schemas.customers.Customer;
import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.events.OrderUpdate;
import io.orderflow.schemas.flows.EdgeDefinition;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.FlowRecord;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.flows.NodeDefinition;
import io.orderflow.schemas.flows.RetryPolicy;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.json.JsonSerde;
import io.orderflow.schemas.model.ChatMessage;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.NodePatch;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderIndexRow;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.OrderSummary;
import io.orderflow.schemas.model.OrderType;
import io.orderflow.schemas.model.Rollback;
import io.orderflow.schemas.model.TimelineEntry;
import io.orderflow.schemas.model.WaitRequest;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationFeature;

/**
 * Golden JSON of every message record: a change to a wire format shows up as a failing test and a diff of the
 * file under {@code src/test/resources/golden}. Run with {@code -Dgolden.update=true} to accept a deliberate change.
 */
class GoldenJsonTest {

    private static final Path GOLDEN = Path.of("src/test/resources/golden");
    private static final long AT = 1_767_225_600_000L; // 2026-01-01T00:00:00Z

    static Stream<Arguments> samples() {
        FlowDefinition graph = new FlowDefinition("storefront_order", "Storefront order", "Pay, ship, done",
                OrderType.STOREFRONT_ORDER,
                List.of(new NodeDefinition("charge", "commerce.charge", "Charge {{order.id}}",
                                Json.object().put("amount", "order.total"), new RetryPolicy(3, 1000, 2)),
                        new NodeDefinition("done", "end", "Done", Json.object().put("outcome", "completed"), null)),
                List.of(new EdgeDefinition("e1", "charge", "done", "ok")));
        FlowVersion flow = new FlowVersion("storefront_order", 1, AT, graph);
        FlowVersion renamed = new FlowVersion("storefront_order", 2, AT + 60_000L, new FlowDefinition(
                graph.id(), graph.name(), graph.description(), graph.orderType(),
                List.of(new NodeDefinition("charge_card", "commerce.charge", "Charge {{order.id}}",
                                Json.object().put("amount", "order.total"), new RetryPolicy(3, 1000, 2)),
                        new NodeDefinition("done", "end", "Done", Json.object().put("outcome", "completed"), null)),
                List.of(new EdgeDefinition("e1", "charge_card", "done", "ok"))));
        JsonNode order = Json.object().put("id", "ord_1").put("type", "storefront_order").put("currency", "USD");
        JsonNode vars = Json.object().put("channel", "web");
        TimelineEntry log = new TimelineEntry(AT, "node", "Charged 39.00 USD", "charge", null, null);

        Map<String, Object> samples = new LinkedHashMap<>();
        samples.put("command-start-order", new CommandEnvelope("c-1", "gw-1", AT, Caller.OPEN,
                new OrderCommand.StartOrder("ord_1", flow, order, vars, "ab12", true)));
        samples.put("command-start-order-by-mail", new CommandEnvelope("c-5", "gw-1", AT,
                new Caller("mail", "mail:buyer@acme.example", "operator"),
                new OrderCommand.StartOrder("ord_2", flow, order, vars, "cd34", true,
                        OrderSource.mail("buyer@acme.example", "orders@orderflow.example"))));
        samples.put("command-deliver-event", new CommandEnvelope("c-2", "gw-1", AT, Caller.OPEN,
                new OrderCommand.DeliverEvent("ord_1", "payment.received", Json.object().put("amount", 39))));
        samples.put("command-decide-approval", new CommandEnvelope("c-3", "gw-1", AT,
                new Caller("token", "token:ci", "approver"),
                new OrderCommand.DecideApproval("ord_1", "approve", "approved", "token:ci", "ok")));
        samples.put("command-cancel-order", new CommandEnvelope("c-4", "gw-1", AT, Caller.OPEN,
                new OrderCommand.CancelOrder("ord_1", "Cancelled via API")));
        samples.put("command-cancel-order-if-match", new CommandEnvelope("c-8", "gw-1", AT, Caller.OPEN,
                new OrderCommand.CancelOrder("ord_1", "Cancelled via API", 7L)));
        samples.put("command-decide-approval-if-match", new CommandEnvelope("c-9", "gw-1", AT,
                new Caller("token", "token:ci", "approver"),
                new OrderCommand.DecideApproval("ord_1", "approve", "approved", "token:ci", "ok", 7L)));
        samples.put("command-append-chat", new CommandEnvelope("c-6", "gw-1", AT,
                new Caller("person", "dana@example.com", "viewer"),
                new OrderCommand.AppendChat("ord_1", List.of(
                        new ChatMessage("msg_1", 0, ChatMessage.USER, "approve it", "dana@example.com", null, null,
                                null),
                        new ChatMessage("msg_2", 0, ChatMessage.TOOL, "Proposed: approve Manager approval", null,
                                "approve", Json.object().put("note", "looks fine"),
                                new ChatMessage.Proposal("prop_1", ChatMessage.Proposal.DECIDE, "approval",
                                        "approved", null, ChatMessage.Proposal.OPEN)),
                        new ChatMessage("msg_3", 0, ChatMessage.ASSISTANT,
                                "I prepared an approval for you to confirm.", null, null, null, null)))));
        samples.put("command-confirm-proposal", new CommandEnvelope("c-7", "gw-1", AT,
                new Caller("person", "dana@example.com", "approver"),
                new OrderCommand.ConfirmProposal("ord_1", "prop_1")));
        samples.put("command-apply-batch-cancel", new CommandEnvelope("c-10", "gw-1", AT,
                new Caller("person", "olga@example.com", "operator"),
                new OrderCommand.ApplyBatchAction("ord_1", "bat_1", new BatchAction.Cancel("Duplicate import"))));
        samples.put("command-apply-batch-deliver", new CommandEnvelope("c-11", "gw-1", AT,
                new Caller("person", "olga@example.com", "operator"),
                new OrderCommand.ApplyBatchAction("ord_1", "bat_1", new BatchAction.DeliverEvent("payment.received",
                        Json.object().put("source", "batch")))));
        samples.put("command-apply-batch-decide", new CommandEnvelope("c-12", "gw-1", AT,
                new Caller("person", "olga@example.com", "operator"),
                new OrderCommand.ApplyBatchAction("ord_1", "bat_1", new BatchAction.DecideApproval("approval",
                        "approved", "olga@example.com", "budgeted"))));
        samples.put("command-apply-batch-retry", new CommandEnvelope("c-13", "gw-1", AT,
                new Caller("person", "olga@example.com", "operator"),
                new OrderCommand.ApplyBatchAction("ord_1", "bat_1", new BatchAction.RetryIncident())));
        samples.put("command-migrate-order", new CommandEnvelope("c-14", "gw-1", AT,
                new Caller("person", "olga@example.com", "operator"),
                new OrderCommand.MigrateOrder("ord_1", renamed, Map.of("charge", "charge_card"), true)));
        samples.put("command-apply-batch-migrate", new CommandEnvelope("c-15", "gw-1", AT,
                new Caller("person", "olga@example.com", "operator"),
                new OrderCommand.ApplyBatchAction("ord_1", "bat_3", new BatchAction.Migrate("storefront_order", 2,
                        Map.of("charge", "charge_card"), false, renamed))));
        samples.put("batch-definition", new BatchRecord.Definition("bat_1",
                new BatchFilter("purchase_request", "waiting", "dept_ops", AT - 86_400_000L, AT), null,
                new BatchAction.Cancel("Duplicate import"), 20, new Caller("person", "olga@example.com", "operator"),
                "olga@example.com", AT));
        samples.put("batch-definition-by-ids", new BatchRecord.Definition("bat_2", null, List.of("ord_1", "ord_2"),
                new BatchAction.RetryIncident(), 5, Caller.OPEN, "open deployment", AT));
        samples.put("batch-definition-migrate", new BatchRecord.Definition("bat_3",
                new BatchFilter("storefront_order", "waiting", null, null, null), null,
                new BatchAction.Migrate("storefront_order", 2, Map.of("charge", "charge_card"), true, renamed), 10,
                new Caller("person", "olga@example.com", "operator"), "olga@example.com", AT));
        samples.put("batch-progress", new BatchRecord.Progress("bat_1", BatchRecord.RUNNING, BatchRecord.ACTING,
                250, 120, 1, List.of(new BatchRecord.Failure("ord_9", "Order ord_9 has already ended: completed",
                AT + 5)), null, 2, 0, 121, false, AT + 6, null, null));
        samples.put("batch-chunk", new BatchRecord.Chunk("bat_1", 0, List.of("ord_1", "ord_2")));
        samples.put("batch-stop", new BatchRecord.Stop("bat_1", "olga@example.com", AT + 7));
        samples.put("command-reply", new CommandReply("c-1", "ord_1", 201, Json.object().put("orderId", "ord_1")));
        samples.put("command-reply-rejected", new CommandReply("c-2", "ord_1", 409, RejectionKind.INVALID_STATE,
                Json.object().put("error", "That node is not waiting for an approval.")));
        samples.put("task-start-run", new NodeTask.StartRun("ord_1", "ord_1.1", flow, order, vars));
        samples.put("task-advance", new NodeTask.Advance("ord_1", "ord_1.1"));
        samples.put("task-resume-node", new NodeTask.ResumeNode("ord_1", "ord_1.1", "approve", "approved",
                Json.object().put("decision", "approved").put("by", "api")));
        samples.put("task-terminate-run", new NodeTask.TerminateRun("ord_1", "ord_1.1", "Cancelled via API"));
        samples.put("task-query-instance", new NodeTask.QueryInstance("ord_1", "ord_1.1", 3));
        samples.put("task-migrate-run", new NodeTask.MigrateRun("ord_1", "ord_1.1", renamed,
                Map.of("charge", "charge_card", "done", "done")));
        samples.put("report-node-detail", new RunReport.NodeDetail("ord_1", "ord_1.1", "charge",
                new NodePatch(NodeStatus.SUCCEEDED, AT, AT + 5, "Charged", Json.object().put("chargeId", "ch_1"),
                        null, List.of("ok")), log));
        samples.put("report-batch", new RunReport.Batch("ord_1", "ord_1.1", List.of(
                new RunReport.NodeDetail("ord_1", "ord_1.1", "tax",
                        new NodePatch(NodeStatus.SUCCEEDED, AT, AT + 1, "Tax 3.12", null, null, null), null),
                new RunReport.NodeDetail("ord_1", "ord_1.1", "charge",
                        new NodePatch(NodeStatus.SUCCEEDED, AT + 1, AT + 5, "Charged", null, null, List.of("ok")),
                        log),
                new RunReport.Progress("ord_1", "ord_1.1", 1, 8, OrderStatus.COMPLETED, null,
                        Map.of("charge", NodeStatus.SUCCEEDED), Map.of("e1", EdgeState.ACTIVE), order, vars, AT))));
        samples.put("report-progress", new RunReport.Progress("ord_1", "ord_1.1", 1, 7, OrderStatus.RUNNING, null,
                Map.of("charge", NodeStatus.SUCCEEDED), Map.of("e1", EdgeState.ACTIVE), order, vars, AT));
        samples.put("report-wait-requested", new RunReport.WaitRequested("ord_1", "ord_1.1", 1,
                new WaitRequest("approve", "approval", "Approve order ord_1", "approval", "manager",
                        new BigDecimal("39.00"), 172_800_000L, AT)));
        samples.put("report-continued", new RunReport.Continued("ord_1", "ord_1.2", 2, "ord_1.1"));
        samples.put("report-instance-status", new RunReport.InstanceStatus("ord_1", "ord_1.1", 1, "errored",
                new Rollback("complete", null)));
        samples.put("report-compensated", new RunReport.Compensated("ord_1", "ord_1.1", 2, 1, 0));
        samples.put("event-order-cancelled", new OrderEvent("order.cancelled", "ord_1", "cancel", AT,
                Json.object().put("outcome", "cancelled").put("reason", "Cancelled via API"), 5));
        samples.put("event-order-update", new OrderUpdate("ord_1", OrderStatus.WAITING, 12, AT));
        samples.put("order-summary", new OrderSummary("ord_1", OrderType.B2B_ORDER, "B2B order", "cus_1", "EUR",
                new BigDecimal("100.00"), new BigDecimal("20.00"), new BigDecimal("120.00"),
                new BigDecimal("0.92"), new BigDecimal("130.43")));
        samples.put("order-index-row", new OrderIndexRow("ord_1", OrderType.PURCHASE_REQUEST, OrderStatus.WAITING,
                "Purchase request", "purchase_request", 1, "ord_1.1", 1, "cus_1", "USD", new BigDecimal("39.00"),
                "Approve order ord_1 · payment.received", AT, AT + 10, null));
        samples.put("customer", new Customer("acme_gmbh", "ACME GmbH", List.of("buyer@acme.example"),
                List.of("acme.example")));
        samples.put("flow-record", new FlowRecord("storefront_order", "Storefront order", "Pay, ship, done",
                OrderType.STOREFRONT_ORDER, 1, AT, List.of(flow)));
        samples.put("clock-setting", new ClockSetting(7_200_000L, AT, "ops@example.com"));
        return samples.entrySet().stream().map(e -> Arguments.of(e.getKey(), e.getValue()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void writesTheGoldenJsonAndReadsItBack(String name, Object sample) throws IOException {
        String json = Json.MAPPER.writer().with(SerializationFeature.INDENT_OUTPUT)
                .with(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).writeValueAsString(sample) + "\n";
        Path file = GOLDEN.resolve(name + ".json");
        if (Boolean.getBoolean("golden.update")) {
            Files.writeString(file, json, StandardCharsets.UTF_8);
        }
        assertThat(file).as("golden file (create it with -Dgolden.update=true)").exists();

        assertThat(json).isEqualTo(Files.readString(file, StandardCharsets.UTF_8));
        Object read = JsonSerde.of(sample.getClass()).deserializer()
                .deserialize("t", Files.readString(file).getBytes(StandardCharsets.UTF_8));
        assertThat(Json.tree(read)).isEqualTo(Json.tree(sample));
    }
}
