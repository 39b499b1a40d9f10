package io.orderflow.processor.order;

import static io.orderflow.processor.order.DeciderScenario.FLOW;
import static io.orderflow.processor.order.DeciderScenario.INSTANCE;
import static io.orderflow.processor.order.DeciderScenario.ORDER;
import static io.orderflow.processor.order.DeciderScenario.given;
import static io.orderflow.processor.order.DeciderScenario.rejected;
import static io.orderflow.processor.order.DeciderScenario.reply;
import static io.orderflow.schemas.commands.RejectionKind.INCOMPATIBLE;
import static io.orderflow.schemas.commands.RejectionKind.INVALID_STATE;
import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.commands.RejectionKind;
import io.orderflow.schemas.flows.EdgeDefinition;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.flows.NodeDefinition;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.OrderType;
import io.orderflow.schemas.model.TimelineEntry;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A migration decided by the decider alone: given an order of version 3 waiting at its approval, when it is migrated,
 * then the facts, the re-keyed approval and deadline, the runner's task and the answer; and every refusal, each with
 * nothing to apply.
 */
class MigrationScenarioTest {

    private static final long NOW = 50_000;
    private static final Wait APPROVAL = new Wait("approve", Wait.APPROVAL, "Approve order ord_1", "approval",
            "manager", new BigDecimal("120.00"), 121_000, 1_000);
    /** Version 4: the approval node is called review. */
    private static final FlowVersion V4 = new FlowVersion("b2b_order", 4, 10,
            new FlowDefinition("b2b_order", "B2B order", null, OrderType.B2B_ORDER,
                    List.of(new NodeDefinition("review", "approval", "Review", Json.object(), null),
                            new NodeDefinition("pay", "wait_for_event", "Await payment", Json.object(), null),
                            new NodeDefinition("end", "end", "Done", Json.object(), null)),
                    List.of(new EdgeDefinition("e1", "review", "pay", "approved"),
                            new EdgeDefinition("e2", "pay", "end", "received"))));

    private static OrderFact.ProgressApplied status(OrderStatus status) {
        return new OrderFact.ProgressApplied(new RunReport.Progress(ORDER, INSTANCE, 1, 1, status, null, null, null,
                null, null, 2_000), 2_000);
    }

    private static DeciderScenario waitingAtApproval() {
        return given(status(OrderStatus.WAITING), new OrderFact.WaitOpened(APPROVAL, 1_000));
    }

    private static OrderCommand.MigrateOrder migrate(FlowVersion to, Map<String, String> mapping, boolean dryRun) {
        return new OrderCommand.MigrateOrder(ORDER, to, mapping, dryRun);
    }

    private static void refused(DeciderScenario scenario, RejectionKind kind, String error) {
        scenario.then(List.of(), List.of(), rejected(kind, error));
    }

    @Test
    void aMigrationReKeysTheWaitItsApprovalAndDeadlineAndTellsTheRunner() {
        Map<String, String> carried = Map.of("approve", "review", "pay", "pay", "end", "end");
        DeciderScenario scenario = waitingAtApproval().when(migrate(V4, Map.of("approve", "review"), false), NOW);

        Decision decision = scenario.decision();
        assertThat(decision.facts()).containsExactly(new OrderFact.OrderMigrated(StoredFlow.slim(V4), 3, carried,
                Map.of("e1", EdgeState.PENDING, "e2", EdgeState.PENDING), "api", NOW, null));
        assertThat(decision.effects()).containsExactly(
                new Effect.MoveApproval("approve", "review"),
                new Effect.ClearDeadline(121_000, "approve"),
                new Effect.ScheduleDeadline(121_000, "review"),
                new Effect.SendTask(new NodeTask.MigrateRun(ORDER, INSTANCE, V4, carried)));
        assertThat(decision.reply().status()).isEqualTo(200);
        assertThat(decision.reply().body().get("ok").asBoolean()).isTrue();
        assertThat(decision.reply().body().get("dryRun").asBoolean()).isFalse();

        OrderState after = scenario.applied(NOW);
        assertThat(after.flow().version()).isEqualTo(4);
        assertThat(after.nodes().keySet()).containsExactly("review", "pay", "end");
        assertThat(after.nodes().get("review").startedAt()).as("the approval's run carries over").isEqualTo(1_000);
        assertThat(after.waits()).singleElement().satisfies(w -> {
            assertThat(w.nodeId()).isEqualTo("review");
            assertThat(w.deadline()).isEqualTo(121_000);
        });
        assertThat(after.status()).isEqualTo(OrderStatus.WAITING);
        TimelineEntry entry = after.timeline().getLast();
        assertThat(entry.kind()).isEqualTo("migrate");
        assertThat(entry.message()).isEqualTo("Migrated from version 3 to version 4 of flow b2b_order by api: "
                + "approve → review");
        assertThat(entry.data().get("mapping").get("approve").asString()).isEqualTo("review");
        assertThat(entry.data().get("fromVersion").asInt()).isEqualTo(3);
    }

    @Test
    void aDryRunAnswersWhatWouldHappenAndChangesNothing() {
        DeciderScenario scenario = waitingAtApproval().when(migrate(V4, Map.of("approve", "review"), true), NOW);

        Decision decision = scenario.decision();
        assertThat(decision.changesState()).isFalse();
        assertThat(decision.effects()).isEmpty();
        var body = decision.reply().body();
        assertThat(decision.reply().status()).isEqualTo(200);
        assertThat(body.get("dryRun").asBoolean()).isTrue();
        assertThat(body.has("ok")).isFalse();
        assertThat(body.get("waits").get(0).get("to").asString()).isEqualTo("review");
        assertThat(body.get("nodes").get(0).get("from").asString()).isEqualTo("approve");
        assertThat(body.get("nodes").get(0).get("to").asString()).isEqualTo("review");
        assertThat(body.get("dropped")).isEmpty();
        assertThat(body.get("added")).isEmpty();
    }

    @Test
    void aMigrationThatDropsTheNodeTheOrderStandsAtIsRefusedNamingIt() {
        refused(waitingAtApproval().when(migrate(V4, Map.of(), false), NOW), INVALID_STATE,
                "Order ord_1 stands at node approve, which version 4 of flow b2b_order does not have and the mapping "
                        + "does not move; map approve to a node of the same type");
    }

    @Test
    void aMigrationThatChangesTheTypeOfTheNodeTheOrderStandsAtIsRefused() {
        refused(waitingAtApproval().when(migrate(V4, Map.of("approve", "pay", "pay", "review"), false), NOW),
                INVALID_STATE,
                "Order ord_1 stands at node approve (approval), which would become node pay (wait_for_event) in "
                        + "version 4; a node the order stands at keeps its type");
    }

    @Test
    void mappingsNamingNodesNeitherVersionHasOrTwoNodesToOneAreRefused() {
        refused(waitingAtApproval().when(migrate(V4, Map.of("approve", "nope"), false), NOW), INCOMPATIBLE,
                "The mapping moves node approve to nope, which version 4 of flow b2b_order does not have");
        refused(waitingAtApproval().when(migrate(V4, Map.of("ghost", "review"), false), NOW), INCOMPATIBLE,
                "The mapping names node ghost, which version 3 of flow b2b_order (the order's) does not have");
        refused(waitingAtApproval().when(migrate(V4, Map.of("approve", "pay"), false), NOW), INCOMPATIBLE,
                "Nodes approve and pay would both become node pay; each node of the new version takes one node");
    }

    @Test
    void anOrderThatIsRunningEndedOrAlreadyOnTheVersionIsRefused() {
        refused(given(status(OrderStatus.RUNNING)).when(migrate(V4, Map.of("approve", "review"), false), NOW),
                INVALID_STATE,
                "Order ord_1 is running; an order is migrated while it waits at an approval or an event");
        refused(given(status(OrderStatus.COMPLETED)).when(migrate(V4, Map.of("approve", "review"), false), NOW),
                INVALID_STATE, "Order ord_1 has already ended: completed");
        refused(waitingAtApproval().when(migrate(FLOW, Map.of(), false), NOW), INVALID_STATE,
                "Order ord_1 is already on version 3 of flow b2b_order");
    }

    @Test
    void aVersionOfAnotherFlowOrForAnotherOrderTypeIsRefused() {
        FlowVersion other = new FlowVersion("purchase_request", 2, 10, V4.graph());
        refused(waitingAtApproval().when(migrate(other, Map.of(), false), NOW), INCOMPATIBLE,
                "Order ord_1 runs on flow b2b_order, not purchase_request");
        FlowDefinition g = V4.graph();
        FlowVersion retyped = new FlowVersion("b2b_order", 4, 10, new FlowDefinition(g.id(), g.name(), null,
                OrderType.REORDER, g.nodes(), g.edges()));
        refused(waitingAtApproval().when(migrate(retyped, Map.of("approve", "review"), false), NOW), INCOMPATIBLE,
                "Version 4 of flow b2b_order is for reorder orders; order ord_1 is a b2b_order order");
    }
}
