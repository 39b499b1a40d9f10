package io.orderflow.runner.run;

import io.orderflow.runner.nodes.Hold;
import io.orderflow.runner.nodes.RunState;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * What one node executes on: the run instance, with copies of what a node may change (the order, the variables, the
 * holds) made when the node first asks for them. What the node changed comes back as one {@link RunFact.NodeWrote}
 * ({@link #wrote}); the instance itself is never changed.
 */
final class NodeCopy implements RunState {

    private final RunInstance run;
    private ObjectNode order;
    private ObjectNode vars;
    private List<Hold> holds;

    NodeCopy(RunInstance run) {
        this.run = run;
    }

    @Override
    public String orderId() {
        return run.orderId();
    }

    @Override
    public int generation() {
        return run.generation();
    }

    @Override
    public ObjectNode order() {
        if (order == null) {
            order = run.order().deepCopy();
        }
        return order;
    }

    @Override
    public ObjectNode vars() {
        if (vars == null) {
            vars = run.vars().deepCopy();
        }
        return vars;
    }

    /** Read only: a node reads the outputs of the nodes before it. */
    @Override
    public ObjectNode outputs() {
        return run.outputs();
    }

    @Override
    public String documentText() {
        return run.documentText();
    }

    @Override
    public int runsOf(String nodeId) {
        return run.runsOf(nodeId);
    }

    @Override
    public List<String> completed() {
        return run.completed();
    }

    @Override
    public List<Hold> holds() {
        if (holds == null) {
            holds = new ArrayList<>(run.holds());
        }
        return holds;
    }

    @Override
    public void holds(List<Hold> holds) {
        this.holds = holds;
    }

    /** What {@code nodeId} changed, if anything: the changed parts, the others {@code null}. */
    Optional<RunFact.NodeWrote> wrote(String nodeId) {
        ObjectNode changedOrder = order != null && !order.equals(run.order()) ? order : null;
        ObjectNode changedVars = vars != null && !vars.equals(run.vars()) ? vars : null;
        List<Hold> changedHolds = holds != null && !holds.equals(run.holds()) ? List.copyOf(holds) : null;
        if (changedOrder == null && changedVars == null && changedHolds == null) {
            return Optional.empty();
        }
        return Optional.of(new RunFact.NodeWrote(nodeId, changedOrder, changedVars, changedHolds));
    }
}
