package io.orderflow.runner.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.runner.nodes.EndNode;
import io.orderflow.runner.nodes.Node;
import io.orderflow.runner.nodes.NodeCatalogue;
import io.orderflow.runner.nodes.NodeContext;
import io.orderflow.runner.nodes.NodeOutcome;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Nodes under the time budget, and tasks and timers the runner cannot handle: each fails or sets aside its one
 * order, and the next order on the partition runs as usual.
 */
class NodeBudgetTest {

    private static final Duration BUDGET = Duration.ofMillis(300);

    /** Holds the stuck node's thread until the test ends, so that no abandoned worker spins on. */
    private final AtomicBoolean released = new AtomicBoolean();

    @AfterEach
    void release() {
        released.set(true);
    }

    /** Spins without looking at interrupts, as a runaway parse would. */
    private final class StuckNode implements Node {
        @Override
        public String type() {
            return "test.stuck";
        }

        @Override
        public NodeOutcome execute(NodeContext ctx) {
            long spins = 0;
            while (!released.get()) {
                spins++;
            }
            return new NodeOutcome.Done(null, Json.object().put("spins", spins), "Done");
        }
    }

    /** Sleeps once, then throws when its timer fires. */
    private static final class BrokenTimerNode implements Node {
        @Override
        public String type() {
            return "test.broken_timer";
        }

        @Override
        public NodeOutcome execute(NodeContext ctx) {
            if (ctx.order().has("slept")) {
                throw new IllegalStateException("the timer's handler is broken");
            }
            ctx.order().put("slept", true);
            return new NodeOutcome.Sleep(1_000, new NodeOutcome.Done(null, Json.object(), "Slept"));
        }
    }

    private RunnerHarness harness() {
        List<Node> nodes = new ArrayList<>(List.of(new StuckNode(), new BrokenTimerNode(), new EndNode()));
        NodeCatalogue standard = NodeCatalogue.standard();
        standard.types().stream().filter(type -> !type.equals("end")).forEach(type -> nodes.add(standard.get(type)));
        return new RunnerHarness(new NodeCatalogue(nodes), new NodeBudget(BUDGET, 4));
    }

    private static FlowDefinition flowThrough(String type) {
        return Json.MAPPER.readValue("""
                {"id": "budget_test", "name": "Budget test", "orderType": "purchase_request",
                 "nodes": [{"id": "first", "type": "%s", "title": "First"},
                           {"id": "done", "type": "end", "settings": {"outcome": "completed"}}],
                 "edges": [{"id": "e1", "from": "first", "to": "done"}]}""".formatted(type), FlowDefinition.class);
    }

    @Test
    void aNodeThatOverrunsItsBudgetFailsItsOrderAndTheNextOrderCompletes() {
        try (RunnerHarness runner = harness()) {
            runner.start("ord_stuck", RunnerHarness.version(flowThrough("test.stuck"), 1),
                    RunnerHarness.order("ord_stuck", "purchase_request", "{}"));

            RunReport.Progress stuck = runner.lastProgress();
            assertThat(stuck.orderId()).isEqualTo("ord_stuck");
            assertThat(stuck.status()).isEqualTo(OrderStatus.FAILED);
            assertThat(stuck.reason()).isEqualTo("First failed: Stopped after 300 ms (the node time budget)");
            assertThat(stuck.nodes()).containsEntry("first", NodeStatus.FAILED);
            assertThat(runner.eventNames()).containsExactly("order.failed");

            runner.start("ord_next", RunnerHarness.version("storefront_order", 1),
                    RunnerHarness.order("ord_next", "storefront_order",
                            "{\"lines\":[{\"sku\":\"MUG-BLUE\",\"qty\":1,\"unitPrice\":12.5}],"
                                    + "\"meta\":{\"shipTo\":\"1 Main Street\"}}"));
            assertThat(runner.lastProgress().orderId()).isEqualTo("ord_next");
            assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.COMPLETED);
        }
    }

    @Test
    void aTimerWhoseHandlingThrowsBecomesAnIncidentInsteadOfVanishing() {
        try (RunnerHarness runner = harness()) {
            runner.start("ord_timer", RunnerHarness.version(flowThrough("test.broken_timer"), 1),
                    RunnerHarness.order("ord_timer", "purchase_request", "{}"));
            assertThat(runner.instance("ord_timer").state()).isEqualTo(RunInstance.State.SLEEPING);

            runner.advance(Duration.ofSeconds(2));

            List<RunReport.Incident> incidents = runner.reportsOf(RunReport.Incident.class);
            assertThat(incidents).singleElement().satisfies(incident -> {
                assertThat(incident.orderId()).isEqualTo("ord_timer");
                assertThat(incident.source()).isEqualTo("timer sleep of node first");
                assertThat(incident.cause()).endsWith("the timer's handler is broken");
            });
            assertThat(runner.instance("ord_timer").state()).isEqualTo(RunInstance.State.TERMINATED);
        }
    }

    @Test
    void aTaskKeyedForAnotherOrderIsRefused() {
        try (RunnerHarness runner = harness()) {
            NodeTask.StartRun start = new NodeTask.StartRun("ord_a", "ord_a.1",
                    RunnerHarness.version("storefront_order", 1),
                    RunnerHarness.order("ord_a", "storefront_order", "{}"), Json.object());
            runner.tasks.pipeInput("ord_b", start);

            assertThat(runner.instance("ord_a")).isNull();
            assertThat(runner.instance("ord_b")).isNull();
            assertThat(runner.reports.readValuesToList()).isEmpty();
        }
    }
}
