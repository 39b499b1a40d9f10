package io.orderflow.processor.order;

import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.commands.OrderSource;
import io.orderflow.schemas.commands.RejectionKind;
import io.orderflow.schemas.model.TimelineEntry;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.EventNames;
import io.orderflow.schemas.model.NodePatch;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.Rollback;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.flows.NodeDefinition;
import io.orderflow.schemas.model.OrderType;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Pure unit tests of decide and apply: no Kafka. */
class OrderDeciderTest {

    private static final FlowVersion FLOW = new FlowVersion("reorder", 2, 0,
            new FlowDefinition("reorder", "Reorder", null, OrderType.REORDER,
                    List.of(new NodeDefinition("n1", "pricing", "Price", Json.object(), null)), List.of()));
    private final OrderDecider decider = new OrderDecider(AgentSettings.DEFAULTS);

    private OrderState started() {
        var start = new OrderCommand.StartOrder("ord_1", FLOW, Json.object().put("type", "reorder"), null, "fp", false);
        Decision decision = decider.decide(null, start, 1_000);
        return OrderApplier.applyAll(null, decision.facts(), 1_000);
    }

    @Test
    void varsKeyReplacesEachRunOfNonAlphanumericsWithOneUnderscore() {
        assertThat(EventNames.varsKey("payment.received")).isEqualTo("payment_received");
        assertThat(EventNames.varsKey("return.requested")).isEqualTo("return_requested");
        assertThat(EventNames.varsKey("a -- b..c")).isEqualTo("a_b_c");
    }

    @Test
    void scaledTimeoutsDivideByTheTimeScaleButNeverGoBelowOneSecond() {
        assertThat(AgentSettings.DEFAULTS.scaledTimeout(86_400_000)).isEqualTo(60_000);
        assertThat(AgentSettings.DEFAULTS.scaledTimeout(5_000)).isEqualTo(1_000);
        assertThat(new AgentSettings(1, 5).scaledTimeout(5_000)).isEqualTo(5_000);
    }

    @Test
    void aStartWithoutCustomerTitlesTheOrderByItsIdAndDefaultsCurrency() {
        OrderState state = started();

        assertThat(state.order().get("title").asString()).isEqualTo("Reorder · ord_1");
        assertThat(state.order().get("currency").asString()).isEqualTo("USD");
        assertThat(state.vars()).isEqualTo(Json.object());
        assertThat(state.timeline().getFirst().message()).isEqualTo("Started on flow Reorder (reorder) version 2");
    }

    @Test
    void anOrderStartedByMailSaysOnItsTimelineFromWhomAndAtWhichMailbox() {
        var start = new OrderCommand.StartOrder("ord_2", FLOW, Json.object().put("type", "reorder"), null, "fp", true,
                OrderSource.mail("buyer@acme.example", "orders@orderflow.example"));
        OrderState state = OrderApplier.applyAll(null, decider.decide(null, start, 1_000).facts(), 1_000);

        // the contract: the "first timeline entry names the flow and version"
        assertThat(state.timeline()).extracting(TimelineEntry::message).containsExactly(
                "Started on flow Reorder (reorder) version 2",
                "Received by mail from buyer@acme.example at orders@orderflow.example");
        assertThat(state.timeline().getLast().data().get("mailbox").asString()).isEqualTo("orders@orderflow.example");
        assertThat(started().timeline()).extracting(TimelineEntry::kind).containsExactly("start");
    }

    @Test
    void aRejectionIsAValueAndChangesNothing() {
        Decision decision = decider.decide(started(), new OrderCommand.DecideApproval("ord_1", "n1", "approved", null,
                null), 2_000);

        assertThat(decision.changesState()).isFalse();
        assertThat(decision.effects()).isEmpty();
        assertThat(decision.reply().rejection()).isEqualTo(RejectionKind.INVALID_STATE);
        assertThat(decision.reply().body().get("error").asString()).isEqualTo("That node is not waiting for an approval.");
    }

    @Test
    void freshnessComparesGenerationThenSequence() {
        OrderState state = started().edit().generation(2).seq(5).build();

        assertThat(OrderDecider.fresh(state, 2, 6)).isTrue();
        assertThat(OrderDecider.fresh(state, 3, 1)).isTrue();
        assertThat(OrderDecider.fresh(state, 2, 5)).isFalse();
        assertThat(OrderDecider.fresh(state, 1, 99)).isFalse();
    }

    @Test
    void rollbackOutcomeRules() {
        OrderState plain = started();
        OrderState rolledBackNode = plain.edit()
                .nodes(Map.of("n1", NodeState.pending().withStatus(NodeStatus.ROLLED_BACK))).build();
        var errored = new RunReport.InstanceStatus("ord_1", "ord_1.1", 1, "errored", null);

        assertThat(OrderDecider.rollbackOf(rolledBackNode, errored)).isEqualTo(new Rollback("complete", null));
        assertThat(OrderDecider.rollbackOf(plain, errored).outcome()).isEqualTo("failed");
        assertThat(OrderDecider.rollbackOf(plain, new RunReport.InstanceStatus("ord_1", "ord_1.1", 1, "complete", null)))
                .isEqualTo(new Rollback("complete", null));
    }

    @Test
    void applyingAFactIsPureAndBumpsTheVersion() {
        OrderState before = started();
        var report = new RunReport.Progress("ord_1", "ord_1.1", 1, 1, OrderStatus.RUNNING, null, Map.of(), Map.of(),
                null, null, 4_000);

        OrderState after = OrderApplier.applyAll(before, List.of(new OrderFact.ProgressApplied(report, 5_000)), 5_000);

        assertThat(before.status()).isEqualTo(OrderStatus.QUEUED);
        assertThat(after.status()).isEqualTo(OrderStatus.RUNNING);
        assertThat(after.version()).isEqualTo(before.version() + 1);
        assertThat(after.updatedAt()).isEqualTo(5_000);
    }

    @Test
    void aNodePatchLeavesTheEarlierStateAsItWasAndTheNewOneReadOnly() {
        OrderState before = started();
        var patch = new OrderFact.NodePatched("n1", new NodePatch(NodeStatus.SUCCEEDED, 4_000L, 4_500L, "priced",
                null, null, null), TimelineEntry.of(4_500, "node", "Priced"));

        OrderState after = OrderApplier.applyAll(before, List.of(patch), 5_000);

        assertThat(before.nodes().get("n1").status()).isEqualTo(NodeStatus.PENDING);
        assertThat(before.timeline()).extracting(TimelineEntry::message).doesNotContain("Priced");
        assertThat(after.nodes().get("n1").status()).isEqualTo(NodeStatus.SUCCEEDED);
        assertThat(after.timeline().getLast().message()).isEqualTo("Priced");
        assertThat(after.timeline()).hasSize(before.timeline().size() + 1);
        assertThatThrownBy(() -> after.nodes().put("n2", after.nodes().get("n1")))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> after.timeline().add(TimelineEntry.of(6_000, "node", "Sneaked in")))
                .isInstanceOf(UnsupportedOperationException.class);
    }
}
