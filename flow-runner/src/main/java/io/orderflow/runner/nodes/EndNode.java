package io.orderflow.runner.nodes;

import java.util.List;
import java.util.Set;

/**
 * {@code end}: ends the run with setting {@code outcome} ({@code completed} default, {@code declined},
 * {@code cancelled} or {@code failed}) and optional {@code reason} (template). Sends {@code order.<outcome>}. Not timed.
 */
public final class EndNode implements Node {

    public static final Set<String> OUTCOMES = Set.of("completed", "declined", "cancelled", "failed");

    @Override
    public String type() {
        return "end";
    }

    @Override
    public boolean timed() {
        return false;
    }

    @Override
    public List<String> branches() {
        return List.of();
    }

    @Override
    public NodeOutcome execute(NodeContext ctx) {
        String outcome = ctx.setting("outcome", "completed");
        if (!OUTCOMES.contains(outcome)) {
            throw new NodeFailure("End node " + ctx.nodeId() + " has unknown outcome " + outcome);
        }
        String reason = ctx.setting("reason", null);
        return new NodeOutcome.End(outcome, reason == null ? null : ctx.render(reason).strip());
    }
}
