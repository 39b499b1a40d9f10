package io.orderflow.runner.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.kafka.testing.ManualClock;
import io.orderflow.runner.connectors.Connectors;
import io.orderflow.runner.money.Money;
import io.orderflow.runner.nodes.EndNode;
import io.orderflow.runner.nodes.Hold;
import io.orderflow.runner.nodes.Node;
import io.orderflow.runner.nodes.NodeCatalogue;
import io.orderflow.runner.nodes.NodeContext;
import io.orderflow.runner.nodes.NodeOutcome;
import io.orderflow.runner.nodes.WaitForEventNode;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.tasks.NodeTask;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Given / when / then for the runner's decider alone, no Kafka: given the facts that made a run instance what it is,
 * when a task or a due timer arrives, then exactly these facts (and these timers), in this order.
 *
 * <p>The flow, {@link #FLOW}: {@code note} (writes {@code vars.noted}) → {@code hold} (holds stock {@code hold-1},
 * gives it back when compensated) → {@code flaky} (throws on its first {@code order.failures} attempts; three
 * attempts, 1 s backoff doubling) → {@code pay} ({@code wait_for_event payment.received}) → {@code done} (completed) on
 * {@code received}, {@code unpaid} (cancelled) on {@code timeout}.
 */
final class DeciderScenario {

    static final String ORDER = "ord_1";
    static final String INSTANCE = ORDER + ".1";
    static final long NOW = Instant.parse("2026-01-05T09:00:00Z").toEpochMilli();
    static final FlowVersion FLOW = new FlowVersion("test_order", 1, NOW, Json.MAPPER.readValue("""
            {"id": "test_order", "name": "Test order", "orderType": "storefront_order",
             "nodes": [{"id": "note", "type": "test.note", "title": "Note"},
                       {"id": "hold", "type": "test.hold", "title": "Hold stock"},
                       {"id": "flaky", "type": "test.flaky", "title": "Flaky",
                        "retry": {"maxAttempts": 3, "initialBackoffMs": 1000, "multiplier": 2}},
                       {"id": "pay", "type": "wait_for_event", "title": "Await payment",
                        "settings": {"event": "payment.received", "timeout": "30d"}},
                       {"id": "done", "type": "end", "title": "Done", "settings": {"outcome": "completed"}},
                       {"id": "unpaid", "type": "end", "title": "Unpaid",
                        "settings": {"outcome": "cancelled", "reason": "Unpaid"}}],
             "edges": [{"id": "e1", "from": "note", "to": "hold"},
                       {"id": "e2", "from": "hold", "to": "flaky"},
                       {"id": "e3", "from": "flaky", "to": "pay"},
                       {"id": "e4", "from": "pay", "to": "done", "branch": "received"},
                       {"id": "e5", "from": "pay", "to": "unpaid", "branch": "timeout"}]}""",
            FlowDefinition.class));

    /**
     * Version 2 of {@link #FLOW}: no {@code flaky}, {@code pay} is {@code payment}, and a paid order is confirmed
     * ({@code confirm}, a {@code test.note}) before it is {@code done}. Edge {@code e3} is gone, {@code e6} is new.
     */
    static final FlowVersion FLOW_V2 = new FlowVersion("test_order", 2, NOW, Json.MAPPER.readValue("""
            {"id": "test_order", "name": "Test order", "orderType": "storefront_order",
             "nodes": [{"id": "note", "type": "test.note", "title": "Note"},
                       {"id": "hold", "type": "test.hold", "title": "Hold stock"},
                       {"id": "payment", "type": "wait_for_event", "title": "Await payment",
                        "settings": {"event": "payment.received", "timeout": "30d"}},
                       {"id": "confirm", "type": "test.note", "title": "Confirm"},
                       {"id": "done", "type": "end", "title": "Done", "settings": {"outcome": "completed"}},
                       {"id": "unpaid", "type": "end", "title": "Unpaid",
                        "settings": {"outcome": "cancelled", "reason": "Unpaid"}}],
             "edges": [{"id": "e1", "from": "note", "to": "hold"},
                       {"id": "e2", "from": "hold", "to": "payment"},
                       {"id": "e4", "from": "payment", "to": "confirm", "branch": "received"},
                       {"id": "e5", "from": "payment", "to": "unpaid", "branch": "timeout"},
                       {"id": "e6", "from": "confirm", "to": "done"}]}""",
            FlowDefinition.class));

    /** The migration of the run to {@link #FLOW_V2}: every node kept but {@code flaky}, {@code pay} renamed. */
    static NodeTask.MigrateRun migrateToV2() {
        return new NodeTask.MigrateRun(ORDER, INSTANCE, FLOW_V2, Map.of("note", "note", "hold", "hold",
                "pay", "payment", "done", "done", "unpaid", "unpaid"));
    }

    static final Hold OPEN_HOLD = new Hold("stock", "hold-1", "hold", true);
    static final Hold CLOSED_HOLD = new Hold("stock", "hold-1", "hold", false);

    private final RunDecider decider;
    private final RunInstance state;
    private RunDecision decision;

    private DeciderScenario(RunInstance state, RunSettings settings) {
        this.state = state;
        this.decider = new RunDecider(catalogue(), Connectors.mock(), Money.seeded(),
                new ManualClock(Instant.ofEpochMilli(NOW)), settings);
    }

    /** The instance the given facts make, applied in turn (the first is usually {@link #started}). */
    static DeciderScenario given(RunFact... facts) {
        return given(RunSettings.DEFAULTS, facts);
    }

    static DeciderScenario given(RunSettings settings, RunFact... facts) {
        return new DeciderScenario(RunApplier.applyAll(null, List.of(facts)), settings);
    }

    /** The start task of an order whose {@code flaky} node fails its first {@code failures} attempts. */
    static NodeTask.StartRun start(int failures) {
        return new NodeTask.StartRun(ORDER, INSTANCE, FLOW, Json.object().put("id", ORDER).put("failures", failures),
                Json.object());
    }

    /** The run {@link #start} begins: at {@code note}, every node and edge pending. */
    static RunFact.RunStarted started(int failures) {
        return new RunFact.RunStarted(RunDecider.initialInstance(start(failures), FlowGraph.of(FLOW)));
    }

    static ObjectNode json(String json) {
        return (ObjectNode) Json.MAPPER.readTree(json);
    }

    static RunInstance.Timer retry(long due) {
        return new RunInstance.Timer(ORDER, INSTANCE, "retry", "flaky", due);
    }

    RunInstance state() {
        return state;
    }

    DeciderScenario when(NodeTask task) {
        decision = decider.decide(state, task);
        return this;
    }

    DeciderScenario when(RunInstance.Timer due) {
        decision = decider.fire(state, due);
        return this;
    }

    /** The task or timer ({@code source}) could not be handled: the order is set aside, {@code stood} kept. */
    DeciderScenario whenSetAside(String source, String cause, JsonNode stood) {
        decision = decider.incident(state, ORDER, source, cause, stood);
        return this;
    }

    /** Exactly these facts, in this order. */
    DeciderScenario then(RunFact... facts) {
        assertThat(decision.facts()).as("facts").containsExactly(facts);
        return this;
    }

    /** Exactly these timers scheduled. */
    DeciderScenario thenTimers(RunInstance.Timer... timers) {
        assertThat(decision.timers()).as("timers").containsExactly(timers);
        return this;
    }

    /** Nothing happens to the instance: no fact, no timer, no task. */
    void thenNothing() {
        assertThat(decision.facts()).as("facts").isEmpty();
        assertThat(decision.timers()).as("timers").isEmpty();
        assertThat(decision.tasks()).as("tasks").isEmpty();
    }

    RunDecision decision() {
        return decision;
    }

    /** The instance after the decision, as the topology stores it. */
    RunInstance applied() {
        return decision.applied(state);
    }

    private static NodeCatalogue catalogue() {
        return new NodeCatalogue(List.of(new Note(), new HoldStock(), new Flaky(), new WaitForEventNode(),
                new EndNode()));
    }

    /** Writes {@code vars.noted}. */
    private static final class Note implements Node {
        @Override
        public String type() {
            return "test.note";
        }

        @Override
        public NodeOutcome execute(NodeContext ctx) {
            ctx.vars().put("noted", true);
            return new NodeOutcome.Done(null, Json.object().put("noted", true), "Noted");
        }
    }

    /** Holds stock {@code hold-1}; its compensation gives it back. */
    private static final class HoldStock implements Node {
        @Override
        public String type() {
            return "test.hold";
        }

        @Override
        public NodeOutcome execute(NodeContext ctx) {
            ctx.hold("stock", "hold-1");
            return new NodeOutcome.Done(null, Json.object().put("holdId", "hold-1"), "Held");
        }

        @Override
        public void compensate(NodeContext ctx, JsonNode output) {
            ctx.openHolds("stock").forEach(ctx::close);
        }
    }

    /** Throws on its first {@code order.failures} attempts. */
    private static final class Flaky implements Node {
        @Override
        public String type() {
            return "test.flaky";
        }

        @Override
        public NodeOutcome execute(NodeContext ctx) {
            if (ctx.attempt() <= ctx.order().path("failures").asInt()) {
                throw new IllegalStateException("attempt " + ctx.attempt() + " failed");
            }
            return new NodeOutcome.Done(null, Json.object(), "Worked");
        }
    }

    /** The facts of a run that went through {@code note} and {@code hold} and has {@code flaky} next. */
    static List<RunFact> throughHold(int failures) {
        return new ArrayList<>(List.of(started(failures), new RunFact.ProgressSent(1),
                new RunFact.NodeEntered("note"),
                new RunFact.NodeWrote("note", null, json("{\"noted\":true}"), null),
                new RunFact.NodeSucceeded("note", json("{\"noted\":true}"), edge("e1"), List.of("hold")),
                new RunFact.NodeEntered("hold"),
                new RunFact.NodeWrote("hold", null, null, List.of(OPEN_HOLD)),
                new RunFact.NodeSucceeded("hold", json("{\"holdId\":\"hold-1\"}"), edge("e2"), List.of("flaky"))));
    }

    /** The facts of a run waiting at {@code pay}, its {@code flaky} node having worked at once. */
    static RunFact[] waitingForPayment() {
        List<RunFact> facts = throughHold(0);
        facts.addAll(List.of(new RunFact.NodeEntered("flaky"),
                new RunFact.NodeSucceeded("flaky", Json.object(), edge("e3"), List.of("pay")),
                new RunFact.NodeEntered("pay"), new RunFact.NodeWaiting("pay"), new RunFact.ProgressSent(2)));
        return facts.toArray(RunFact[]::new);
    }

    /** The one edge leaving a node, taken. */
    static Map<String, EdgeState> edge(String taken) {
        return Map.of(taken, EdgeState.ACTIVE);
    }
}
