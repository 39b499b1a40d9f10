package io.orderflow.processor.order;

import io.orderflow.processor.timers.Due;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.commands.RejectionKind;
import io.orderflow.schemas.flows.EdgeDefinition;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.flows.NodeDefinition;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderType;
import io.orderflow.schemas.reports.RunReport;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Given / when / then for the decider alone, no Kafka: given the facts that made an order what it is, when a command,
 * a run report or a due timer arrives, then exactly these facts, these effects and this reply (or none).
 *
 * <pre>{@code
 * given(waitOpened(approval)).when(new CancelOrder(ORDER, "Budget frozen"))
 *         .then(List.of(new OrderCancelled(...)), List.of(new CloseApproval(...), ...), reply(200, ok));
 * }</pre>
 */
final class DeciderScenario {

    static final String ORDER = "ord_1";
    static final String INSTANCE = ORDER + ".1";
    static final long STARTED_AT = 1_000;
    static final FlowVersion FLOW = new FlowVersion("b2b_order", 3, 0,
            new FlowDefinition("b2b_order", "B2B order", null, OrderType.B2B_ORDER,
                    List.of(new NodeDefinition("approve", "approval", "Approve", Json.object(), null),
                            new NodeDefinition("pay", "wait_for_event", "Await payment", Json.object(), null),
                            new NodeDefinition("end", "end", "Done", Json.object(), null)),
                    List.of(new EdgeDefinition("e1", "approve", "pay", "approved"),
                            new EdgeDefinition("e2", "pay", "end", "received"))));

    private final OrderDecider decider = new OrderDecider(AgentSettings.DEFAULTS);
    private final OrderState state;
    private Decision decision;

    private DeciderScenario(OrderState state) {
        this.state = state;
    }

    /** A b2b order started at {@link #STARTED_AT}, then the given facts applied in turn. */
    static DeciderScenario given(OrderFact... facts) {
        OrderCommand.StartOrder start = new OrderCommand.StartOrder(ORDER, FLOW,
                Json.object().put("type", "b2b_order").put("customerId", "cus_1"), null, "fp", false);
        List<OrderFact> all = new ArrayList<>();
        all.add(new OrderFact.OrderStarted(OrderDecider.initialState(start, STARTED_AT)));
        all.addAll(List.of(facts));
        return new DeciderScenario(OrderApplier.applyAll(null, all, STARTED_AT));
    }

    OrderState state() {
        return state;
    }

    DeciderScenario when(OrderCommand command, long now) {
        decision = decider.decide(state, command, now);
        return this;
    }

    DeciderScenario when(RunReport report, long now) {
        decision = decider.onReport(state, report, now);
        return this;
    }

    DeciderScenario when(Due due, long now) {
        decision = decider.onDue(state, due, now);
        return this;
    }

    /** Exactly these facts and effects, in this order, and this reply ({@code null}: none, as for a report). */
    void then(List<OrderFact> facts, List<Effect> effects, Decision.Reply reply) {
        assertThat(decision.facts()).as("facts").containsExactlyElementsOf(facts);
        assertThat(decision.effects()).as("effects").containsExactlyElementsOf(effects);
        assertThat(decision.reply()).as("reply").isEqualTo(reply);
    }

    /** The decision made, for a reply whose body is checked field by field. */
    Decision decision() {
        return decision;
    }

    /** The state after the decision's facts, as the agent applies them at {@code now}. */
    OrderState applied(long now) {
        return OrderApplier.applyAll(state, decision.facts(), now);
    }

    /** This reply, with facts that change the state (which other scenarios spell out). */
    void thenReplied(Decision.Reply reply) {
        assertThat(decision.changesState()).as("changes the state").isTrue();
        assertThat(decision.reply()).as("reply").isEqualTo(reply);
    }

    /** Nothing happens: no fact, no effect, no reply. */
    void thenNothing() {
        then(List.of(), List.of(), null);
    }

    static Decision.Reply reply(int status, String json) {
        return new Decision.Reply(status, Json.MAPPER.readTree(json));
    }

    /** The refusal of kind {@code kind} with the one error message. */
    static Decision.Reply rejected(RejectionKind kind, String error) {
        return Decision.Reply.rejected(new Rejection(kind, error));
    }

    static JsonNode json(String json) {
        return Json.MAPPER.readTree(json);
    }
}
