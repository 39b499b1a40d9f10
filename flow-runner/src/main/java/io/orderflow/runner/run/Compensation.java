package io.orderflow.runner.run;

import io.orderflow.runner.connectors.ConnectorCall;
import io.orderflow.runner.connectors.Connectors;
import io.orderflow.runner.nodes.Hold;
import io.orderflow.runner.nodes.NodeCatalogue;
import io.orderflow.runner.nodes.NodeContext;
import io.orderflow.schemas.flows.NodeDefinition;
import io.orderflow.schemas.model.NodePatch;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.Rollback;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Giving back what a run did or holds: the rollback of a failed run (each completed node compensated, in reverse) and
 * the release of open holds (on cancel, and at an End other than {@code completed}). Split from {@link RunDecider},
 * which decides when; this class knows how. Neither changes the instance: a rollback decides its facts as it goes, and
 * a release answers the holds as they are after it.
 */
final class Compensation {

    /** Reports a node's detail (patch and log line) the way the decider reports every other. */
    @FunctionalInterface
    interface Details {
        void report(RunInstance instance, NodeDefinition definition, NodePatch patch, String log,
                    RunDecision.Builder fx);
    }

    /** Runs a node's work on a copy of what it may change, deciding what it wrote ({@link NodeCopy}). */
    @FunctionalInterface
    interface Copies {
        void run(RunDecision.Builder fx, NodeDefinition definition, Consumer<NodeContext> work);
    }

    private final NodeCatalogue catalogue;
    private final Connectors connectors;
    private final Copies copies;
    private final Details details;

    Compensation(NodeCatalogue catalogue, Connectors connectors,
                 Copies copies, Details details) {
        this.catalogue = catalogue;
        this.connectors = connectors;
        this.copies = copies;
        this.details = details;
    }

    /**
     * Compensates the completed nodes in reverse order of completion, marking each {@code rolled_back}; the first
     * compensation that throws stops the rollback as {@code failed} with its error.
     */
    Rollback rollBack(FlowGraph graph, RunDecision.Builder fx) {
        List<String> order = new ArrayList<>(new LinkedHashSet<>(fx.state().completed().reversed()));
        for (String nodeId : order) {
            NodeDefinition definition = graph.node(nodeId);
            try {
                fx.guard.entering(RunDecider.Guard.compensating(nodeId));
                if (fx.guard.overran(RunDecider.Guard.compensating(nodeId))) {
                    throw new IllegalStateException(fx.guard.overrunMessage());
                }
                copies.run(fx, definition, context -> catalogue.get(definition.type()).compensate(context,
                        fx.state().outputs().get(nodeId)));
            } catch (RuntimeException e) {
                String error = "Compensating " + nodeId + " failed: " + e.getMessage();
                details.report(fx.state(), definition, new NodePatch(null, null, null, null, null, error, null),
                        error, fx);
                return new Rollback("failed", error);
            }
            fx.fact(new RunFact.NodeRolledBack(nodeId));
            RunInstance instance = fx.state();
            details.report(instance, definition, new NodePatch(NodeStatus.ROLLED_BACK, null, null, "Rolled back", null,
                    null, null), "Rolled back " + RunDecider.title(instance, definition), fx);
        }
        return new Rollback("complete", null);
    }

    /** A completed run keeps what it holds: its holds are closed without a connector call. */
    static Released keepHolds(RunInstance instance) {
        return new Released(0, 0, 0,
                instance.holds().stream().map(h -> new Hold(h.kind(), h.id(), h.nodeId(), false)).toList());
    }

    /**
     * Gives back what the run still holds: stock holds released, open authorizations voided, booked shipments
     * cancelled. A cancel does it, and so does an End node other than {@code completed}, since nothing after the end
     * would ever use or free them (a B2B order declined at capture still holds its reserved stock). Not subject to
     * {@code meta.simulate}: the simulated failures are for the flow's own steps and its rollback.
     */
    Released releaseHolds(RunInstance instance, String step) {
        int released = 0;
        int voided = 0;
        int cancelled = 0;
        ConnectorCall call = new ConnectorCall(instance.orderId(), instance.generation(), step, 1, 1, Set.of());
        List<Hold> holds = new ArrayList<>();
        for (Hold hold : instance.holds()) {
            if (!hold.open()) {
                holds.add(hold);
                continue;
            }
            switch (hold.kind()) {
                case "stock" -> {
                    connectors.inventory().release(call, hold.id());
                    released++;
                }
                case "authorization" -> {
                    connectors.payment().voidAuthorization(call, hold.id());
                    voided++;
                }
                case "shipment" -> {
                    connectors.shipping().cancel(call, hold.id());
                    cancelled++;
                }
                default -> throw new IllegalStateException("Unknown hold kind " + hold.kind());
            }
            holds.add(new Hold(hold.kind(), hold.id(), hold.nodeId(), false));
        }
        return new Released(released, voided, cancelled, List.copyOf(holds));
    }

    /** What {@link #releaseHolds} gave back, by kind, and the holds after it (all closed). */
    record Released(int stock, int authorizations, int shipments, List<Hold> holds) {

        boolean any() {
            return stock + authorizations + shipments > 0;
        }

        String describe() {
            return stock + " held stock released, " + authorizations + " authorizations voided, " + shipments
                    + " shipments cancelled";
        }
    }
}
