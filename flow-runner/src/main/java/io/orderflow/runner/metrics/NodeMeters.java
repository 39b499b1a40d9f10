package io.orderflow.runner.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.runner.nodes.Node;
import io.orderflow.runner.nodes.NodeCatalogue;
import io.orderflow.runner.nodes.NodeContext;
import io.orderflow.runner.nodes.NodeOutcome;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * Node executions by node type and result, counted by wrapping each node of the catalogue, so the run decider and the
 * nodes stay as they are. Meter: {@code orderflow.nodes.executions{type,result}} with result {@code done},
 * {@code wait}, {@code sleep}, {@code end} (what {@link Node#execute} answered) or {@code failed} (it threw: a failed
 * attempt, retried per the node's policy). The counters of a type are made when the catalogue is, so an execution
 * only increments one.
 */
final class NodeMeters {

    static final String EXECUTIONS = "orderflow.nodes.executions";

    private NodeMeters() {
    }

    /** {@code catalogue} with every node counted in {@code registry}. */
    static NodeCatalogue counted(NodeCatalogue catalogue, MeterRegistry registry) {
        List<Node> nodes = catalogue.types().stream()
                .<Node>map(type -> new Counted(catalogue.get(type), registry))
                .toList();
        return new NodeCatalogue(nodes);
    }

    private static final class Counted implements Node {

        private final Node node;
        private final Counter done;
        private final Counter waiting;
        private final Counter sleeping;
        private final Counter ended;
        private final Counter failed;

        Counted(Node node, MeterRegistry registry) {
            this.node = node;
            this.done = counter(registry, node.type(), "done");
            this.waiting = counter(registry, node.type(), "wait");
            this.sleeping = counter(registry, node.type(), "sleep");
            this.ended = counter(registry, node.type(), "end");
            this.failed = counter(registry, node.type(), "failed");
        }

        private static Counter counter(MeterRegistry registry, String type, String result) {
            return Counter.builder(EXECUTIONS).description("Node executions by node type and result")
                    .tag("type", type).tag("result", result).register(registry);
        }

        @Override
        public NodeOutcome execute(NodeContext ctx) {
            NodeOutcome outcome;
            try {
                outcome = node.execute(ctx);
            } catch (RuntimeException e) {
                failed.increment();
                throw e;
            }
            switch (outcome) {
                case NodeOutcome.Done ignored -> done.increment();
                case NodeOutcome.Wait ignored -> waiting.increment();
                case NodeOutcome.Sleep ignored -> sleeping.increment();
                case NodeOutcome.End ignored -> ended.increment();
                case null -> {
                }
            }
            return outcome;
        }

        @Override
        public String type() {
            return node.type();
        }

        @Override
        public List<String> branches() {
            return node.branches();
        }

        @Override
        public NodeOutcome.Done resume(NodeContext ctx, String branch, JsonNode payload) {
            return node.resume(ctx, branch, payload);
        }

        @Override
        public void compensate(NodeContext ctx, JsonNode output) {
            node.compensate(ctx, output);
        }

        @Override
        public String eventOn(String branch, JsonNode output) {
            return node.eventOn(branch, output);
        }

        @Override
        public boolean timed() {
            return node.timed();
        }
    }
}
