package io.orderflow.processor.order;

import io.orderflow.schemas.model.NodePatch;
import io.orderflow.schemas.model.NodeStatus;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

/**
 * One node of an order's plan as stored (the API shows it as {@link io.orderflow.schemas.query.OrderView.Node}).
 * {@code startedAt} is the start of the current (or last) run;
 * {@code endedAt} is {@code null} while that run is open.
 */
public record NodeState(NodeStatus status, List<NodeRun> runs, String summary, JsonNode output, String error,
                        List<String> branches, Long startedAt, Long endedAt) {

    public NodeState {
        runs = runs == null ? List.of() : List.copyOf(runs);
    }

    public static NodeState pending() {
        return new NodeState(NodeStatus.PENDING, List.of(), null, null, null, null, null, null);
    }

    public NodeState withStatus(NodeStatus next) {
        return new NodeState(next, runs, summary, output, error, branches, startedAt, endedAt);
    }

    /** A run is open from its start until its first end. */
    public boolean runOpen() {
        return startedAt != null && endedAt == null;
    }

    /**
     * Starts a run at {@code at} unless one is open (a retried attempt keeps the run's first start) or a run
     * starting at {@code at} was already recorded (a replayed report).
     */
    public NodeState startRun(long at) {
        if (runOpen() || runs.stream().anyMatch(r -> r.startedAt() == at)) {
            return this;
        }
        return new NodeState(status, runs, summary, output, error, branches, at, null);
    }

    /** Ends the open run at {@code at}, writing its run record once; an end before the start is ignored. */
    public NodeState endRun(long at) {
        if (!runOpen() || at < startedAt) {
            return this;
        }
        List<NodeRun> more = new ArrayList<>(runs);
        more.add(NodeRun.of(startedAt, at));
        return new NodeState(status, more, summary, output, error, branches, startedAt, at);
    }

    /** Applies the non-null fields of a patch; {@code timed} is false for nodes that never run a timer. */
    public NodeState patch(NodePatch patch, boolean timed) {
        NodeState next = new NodeState(
                patch.status() != null ? patch.status() : status, runs,
                patch.summary() != null ? patch.summary() : summary,
                patch.output() != null ? patch.output() : output,
                patch.error() != null ? patch.error() : error,
                patch.branches() != null ? List.copyOf(patch.branches()) : branches,
                startedAt, endedAt);
        if (!timed) {
            return next;
        }
        if (patch.startedAt() != null) {
            next = next.startRun(patch.startedAt());
        }
        if (patch.endedAt() != null) {
            next = next.endRun(patch.endedAt());
        }
        return next;
    }
}
