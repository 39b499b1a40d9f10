package io.orderflow.runner.run;

import io.orderflow.runner.nodes.Hold;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.Rollback;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What happened to a run instance, decided by {@link RunDecider} and applied to the instance by {@link RunApplier}.
 * Sealed, so the applier's switch is exhaustive.
 */
public sealed interface RunFact {

    /** A new instance, at the flow's first node with every node and edge pending. */
    record RunStarted(RunInstance instance) implements RunFact {
    }

    /**
     * The run took {@code nodeId}, the first of its ready nodes, and executes it: one more step, one more attempt at
     * the node, and, on a first attempt, one more run of it.
     */
    record NodeEntered(String nodeId) implements RunFact {
    }

    /**
     * A node (executing, resuming, finishing a sleep or compensating), or the giving back of what the run holds,
     * changed the order, the run's variables or the holds; a {@code null} component is unchanged.
     */
    record NodeWrote(String nodeId, ObjectNode order, ObjectNode vars, List<Hold> holds) implements RunFact {
    }

    /**
     * {@code nodeId} succeeded with {@code output}: the edges leaving it are now {@code edges} (taken ones active) and
     * the nodes they lead to, {@code next}, are pending and ready; no {@code next} is a node no edge leaves on its
     * branch.
     */
    record NodeSucceeded(String nodeId, JsonNode output, Map<String, EdgeState> edges, List<String> next)
            implements RunFact {

        public NodeSucceeded {
            edges = Collections.unmodifiableMap(new LinkedHashMap<>(edges));
            next = List.copyOf(next);
        }
    }

    /** {@code nodeId} waits for an event or a decision: the run waits until it is resumed. */
    record NodeWaiting(String nodeId) implements RunFact {
    }

    /** The waiting {@code nodeId} was resumed on {@code branch}: the run runs again. */
    record NodeResumed(String nodeId, String branch) implements RunFact {
    }

    /** {@code nodeId} sleeps ({@code control.wait}) until {@code timer} fires. */
    record NodeSleeping(String nodeId, RunInstance.Timer timer) implements RunFact {
    }

    /** {@code nodeId} threw and is tried again when {@code timer} fires. */
    record NodeRetrying(String nodeId, RunInstance.Timer timer) implements RunFact {
    }

    /** The instance's timer fired: the run runs again (a retried node first). */
    record TimerFired(RunInstance.Timer timer) implements RunFact {
    }

    /** {@code nodeId} failed for good (attempts spent, or a failure no retry mends). */
    record NodeFailed(String nodeId) implements RunFact {
    }

    /** The failed run's rollback compensated {@code nodeId}. */
    record NodeRolledBack(String nodeId) implements RunFact {
    }

    /** The run failed for {@code reason}, its rollback ended as {@code rollback}: the instance is errored. */
    record RunFailed(String reason, Rollback rollback) implements RunFact {
    }

    /**
     * The run reached End node {@code nodeId} with {@code status} (its outcome) and {@code reason}: the instance is
     * complete, nodes never reached are skipped and edges never taken inactive.
     */
    record RunEnded(String nodeId, OrderStatus status, String reason, ObjectNode output) implements RunFact {
    }

    /** The order's agent ended the run (a cancel, or an incident): nothing runs, waits or fires any more. */
    record RunTerminated() implements RunFact {
    }

    /** The order was set aside because a task or timer could not be handled: the instance is terminated, failed. */
    record IncidentRaised(String cause) implements RunFact {
    }

    /** The instance as it stood before the incident ({@link RunInstance#setAside}), kept for a retry. */
    record SetAside(JsonNode stood) implements RunFact {
    }

    /** An operator retried the incident: the instance is put back as it {@code stood}, keeping what it holds now. */
    record Revived(RunInstance stood) implements RunFact {
    }

    /** The run went beyond its step limit and continues as instance {@code instanceId} of {@code generation}. */
    record RunContinued(String instanceId, int generation) implements RunFact {
    }

    /**
     * The order was migrated to version {@code flow} of its flow while the run waited: the run goes on with it, its
     * nodes, outputs, ready and completed nodes, attempt and run counts, holds and waiting node renamed through
     * {@code mapping} (old id to new id; a node it does not keep is forgotten). {@code nodes} and {@code edges} are the
     * new version's node and edge ids, in its order: a node no old node becomes is pending, and an edge keeps its state
     * when the old version had an edge with its id.
     */
    record RunMigrated(FlowVersion flow, Map<String, String> mapping, List<String> nodes, List<String> edges)
            implements RunFact {

        public RunMigrated {
            mapping = Collections.unmodifiableMap(new LinkedHashMap<>(mapping));
            nodes = List.copyOf(nodes);
            edges = List.copyOf(edges);
        }
    }

    /** A sequenced Progress report numbered {@code seq} was sent. */
    record ProgressSent(long seq) implements RunFact {
    }
}
