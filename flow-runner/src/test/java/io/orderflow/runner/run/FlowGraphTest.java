package io.orderflow.runner.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.schemas.flows.FlowVersion;
import org.junit.jupiter.api.Test;

/** The flow graph the decider steps through: built once per pinned flow version. */
class FlowGraphTest {

    private final FlowVersion storefront = RunnerHarness.version("storefront_order", 1);

    @Test
    void theGraphHasItsNodesByIdTheEdgesLeavingEachAndTheFirstNodeAsStart() {
        FlowGraph graph = FlowGraph.of(storefront);

        assertThat(graph.start().id()).isEqualTo(storefront.graph().nodes().getFirst().id());
        assertThat(graph.nodes()).hasSize(storefront.graph().nodes().size());
        storefront.graph().nodes().forEach(node -> assertThat(graph.node(node.id())).isEqualTo(node));
        storefront.graph().nodes().forEach(node -> assertThat(graph.outgoing(node.id())).containsExactlyElementsOf(
                storefront.graph().edges().stream().filter(e -> e.from().equals(node.id())).toList()));
        assertThat(graph.outgoing("completed")).as("an End node has no way out").isEmpty();
        assertThatThrownBy(() -> graph.node("nope")).hasMessage("Flow storefront_order has no node nope");
    }

    @Test
    void aPinnedVersionIsBuiltOnceHoweverOftenItsInstancesAreRead() {
        FlowGraph.Cache cache = new FlowGraph.Cache();

        // each task reads its instance (and the flow in it) anew from the store: equal versions, different objects
        FlowGraph first = cache.of(RunnerHarness.version("storefront_order", 1));
        FlowGraph again = cache.of(RunnerHarness.version("storefront_order", 1));

        assertThat(again).isSameAs(first);
        assertThat(cache.of(RunnerHarness.version("b2b_order", 1))).isNotSameAs(first);
        assertThat(cache.size()).isEqualTo(2);
    }

}
