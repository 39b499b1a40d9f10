package io.orderflow.runner.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.orderflow.runner.connectors.Connectors;
import io.orderflow.runner.money.Money;
import io.orderflow.schemas.flows.NodeDefinition;
import io.orderflow.schemas.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Given / when / then for one node type of the catalogue, no topology: given the order, the run's variables, the
 * outputs of earlier nodes, what connectors hold and the node's settings, when the node executes (or resumes, or is
 * compensated), then this outcome, these changes to the order and the holds, or this failure. The connectors are the
 * mock ones (deterministic ids, {@code meta.simulate} honoured), the money the seeded rates and price list.
 *
 * <pre>{@code
 * given("commerce.charge").order("{\"total\": 40}").simulate("payment_declined")
 *         .whenExecuted().finishesOn("declined").output("declined", "true");
 * }</pre>
 */
final class NodeScenario {

    static final String ORDER = "ord_x";
    private static final NodeCatalogue CATALOGUE = NodeCatalogue.standard();

    private final Node node;
    private final TestRun run = new TestRun();
    private ObjectNode settings = Json.object();
    private String title;
    private int attempt = 1;
    private long timeScale = 1440;

    private NodeScenario(Node node) {
        this.node = node;
    }

    /** The node of {@code type} as the runner's catalogue registers it. */
    static NodeScenario given(String type) {
        return new NodeScenario(CATALOGUE.get(type));
    }

    /** The order object (its {@code id} is {@link #ORDER}). */
    NodeScenario order(String json) {
        run.order = (ObjectNode) Json.MAPPER.readTree(json);
        run.order.put("id", ORDER);
        return this;
    }

    NodeScenario vars(String json) {
        run.vars = (ObjectNode) Json.MAPPER.readTree(json);
        return this;
    }

    NodeScenario settings(String json) {
        settings = (ObjectNode) Json.MAPPER.readTree(json);
        return this;
    }

    /** The node's own title in the flow ({@code null}: none). */
    NodeScenario title(String title) {
        this.title = title;
        return this;
    }

    /** The order's {@code meta.simulate} values. */
    NodeScenario simulate(String... values) {
        ObjectNode meta = run.order.get("meta") instanceof ObjectNode given ? given : run.order.putObject("meta");
        meta.set("simulate", Json.tree(List.of(values)));
        return this;
    }

    /** An earlier node of the run that completed with {@code output}. */
    NodeScenario completed(String nodeId, String output) {
        run.outputs.set(nodeId, Json.MAPPER.readTree(output));
        run.completed.add(nodeId);
        return this;
    }

    /** Something a connector holds for the order, taken by node {@code nodeId}. */
    NodeScenario holding(String kind, String id, String nodeId) {
        run.holds.add(new Hold(kind, id, nodeId, true));
        return this;
    }

    NodeScenario attempt(int attempt) {
        this.attempt = attempt;
        return this;
    }

    NodeScenario timeScale(long timeScale) {
        this.timeScale = timeScale;
        return this;
    }

    Then whenExecuted() {
        return when(n -> n.execute(context()));
    }

    Then whenResumed(String branch, String payload) {
        return when(n -> n.resume(context(), branch, payload == null ? null : Json.MAPPER.readTree(payload)));
    }

    /** The node undone in a rollback, {@code output} being what it produced. */
    Then whenCompensated(String output) {
        return when(n -> {
            n.compensate(context(), Json.MAPPER.readTree(output));
            return null;
        });
    }

    private Then when(Function<Node, NodeOutcome> step) {
        List<Hold> before = List.copyOf(run.holds);
        List<NodeOutcome> outcome = new ArrayList<>();
        Throwable failure = catchThrowable(() -> outcome.add(step.apply(node)));
        return new Then(node, run, outcome.isEmpty() ? null : outcome.getFirst(), failure, before);
    }

    private NodeContext context() {
        NodeDefinition definition = new NodeDefinition("n", node.type(), title, settings, null);
        return new NodeContext(run, definition, attempt, Connectors.mock(), Money.seeded(), timeScale, 0);
    }

    /** What the node did. */
    static final class Then {

        private final Node node;
        private final TestRun run;
        private final NodeOutcome outcome;
        private final Throwable failure;
        private final List<Hold> holdsBefore;

        private Then(Node node, TestRun run, NodeOutcome outcome, Throwable failure, List<Hold> holdsBefore) {
            this.node = node;
            this.run = run;
            this.outcome = outcome;
            this.failure = failure;
            this.holdsBefore = holdsBefore;
        }

        /** It finished on {@code branch} ({@code null}: the default next), a branch the node declares. */
        Then finishesOn(String branch) {
            assertThat(failure).as("failure").isNull();
            assertThat(outcome).as("outcome").isInstanceOf(NodeOutcome.Done.class);
            assertThat(done().branch()).as("branch").isEqualTo(branch);
            if (branch != null) {
                assertThat(node.branches()).as("the node's branches").contains(branch);
            }
            return this;
        }

        NodeOutcome.Done done() {
            return switch (outcome) {
                case NodeOutcome.Done done -> done;
                case NodeOutcome.Sleep sleep -> sleep.done();
                case null, default -> throw new AssertionError("not done: " + outcome);
            };
        }

        /** The node's output has {@code field} as {@code expected} (JSON). */
        Then output(String field, String expected) {
            sameJson(done().output().get(field), expected, "output." + field);
            return this;
        }

        Then summary(String expected) {
            assertThat(done().summary()).as("summary").isEqualTo(expected);
            return this;
        }

        /** The order object afterwards has {@code field} as {@code expected} (JSON). */
        Then order(String field, String expected) {
            sameJson(run.order.get(field), expected, "order." + field);
            return this;
        }

        /** The run's variables afterwards have {@code field} as {@code expected} (JSON). */
        Then vars(String field, String expected) {
            sameJson(run.vars.get(field), expected, "vars." + field);
            return this;
        }

        /** The run's variables afterwards have no {@code field}. */
        Then noVar(String field) {
            assertThat(run.vars.has(field)).as("vars." + field + " is set").isFalse();
            return this;
        }

        /** The outbound event a finish on the outcome's branch sends ({@code null}: none). */
        Then sends(String event) {
            assertThat(node.eventOn(done().branch(), done().output())).as("event").isEqualTo(event);
            return this;
        }

        /** The open holds of the order afterwards, as {@code kind:id}. */
        Then openHolds(String... holds) {
            assertThat(run.holds.stream().filter(Hold::open).map(h -> h.kind() + ":" + h.id()).toList())
                    .as("open holds").containsExactly(holds);
            return this;
        }

        Then holdsUnchanged() {
            assertThat(run.holds).as("holds").isEqualTo(holdsBefore);
            return this;
        }

        /** It opened a wait. */
        NodeOutcome.Wait waits() {
            assertThat(failure).as("failure").isNull();
            assertThat(outcome).as("outcome").isInstanceOf(NodeOutcome.Wait.class);
            return (NodeOutcome.Wait) outcome;
        }

        NodeOutcome.Sleep sleeps() {
            assertThat(failure).as("failure").isNull();
            assertThat(outcome).as("outcome").isInstanceOf(NodeOutcome.Sleep.class);
            return (NodeOutcome.Sleep) outcome;
        }

        NodeOutcome.End ends() {
            assertThat(failure).as("failure").isNull();
            assertThat(outcome).as("outcome").isInstanceOf(NodeOutcome.End.class);
            return (NodeOutcome.End) outcome;
        }

        /** It failed the run at once (no retry) with {@code message}. */
        Then failsTheRun(String message) {
            assertThat(failure).as("failure").isInstanceOf(NodeFailure.class).hasMessage(message);
            return this;
        }

        /** It failed the run at once with a message that starts with {@code prefix}. */
        Then failsTheRunWith(String prefix) {
            assertThat(failure).as("failure").isInstanceOf(NodeFailure.class).hasMessageStartingWith(prefix);
            return this;
        }

        /** It threw something its retry policy retries, with {@code message}. */
        Then throwsRetryable(String message) {
            assertThat(failure).as("failure").isNotNull().isNotInstanceOf(NodeFailure.class).hasMessage(message);
            return this;
        }

        /** Compensation went through. */
        Then undone() {
            assertThat(failure).as("failure").isNull();
            return this;
        }

        /** Compensation could not undo it (the rollback's outcome becomes failed). */
        Then cannotBeUndone(String message) {
            assertThat(failure).as("failure").isNotNull().hasMessage(message);
            return this;
        }
    }

    /** {@code actual} is {@code expected} (JSON), numbers compared by value: {@code 40} is {@code 40.00}. */
    private static void sameJson(JsonNode actual, String expected, String what) {
        JsonNode wanted = Json.MAPPER.readTree(expected);
        if (wanted.isNumber()) {
            assertThat(actual).as(what).isNotNull();
            assertThat(actual.isNumber()).as(what + " is a number: " + actual).isTrue();
            assertThat(actual.decimalValue()).as(what).isEqualByComparingTo(wanted.decimalValue());
        } else {
            assertThat(actual).as(what).isEqualTo(wanted);
        }
    }
}
