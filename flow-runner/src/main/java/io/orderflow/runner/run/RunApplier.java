package io.orderflow.runner.run;

import io.orderflow.runner.nodes.Hold;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Applies {@link RunFact}s to a {@link RunInstance}: each fact makes the next instance by copy, reading nothing but
 * the instance and the fact (no clock, no connector, no flow).
 */
public final class RunApplier {

    private RunApplier() {
    }

    /** Applies every fact in turn; {@code state} is {@code null} before the run's start. */
    public static RunInstance applyAll(RunInstance state, List<RunFact> facts) {
        RunInstance next = state;
        for (RunFact fact : facts) {
            next = apply(next, fact);
        }
        return next;
    }

    public static RunInstance apply(RunInstance state, RunFact fact) {
        return switch (fact) {
            case RunFact.RunStarted started -> started.instance();
            case RunFact.NodeEntered entered -> entered(state, entered.nodeId());
            case RunFact.NodeWrote wrote -> state.edit()
                    .order(wrote.order() != null ? wrote.order() : state.order())
                    .vars(wrote.vars() != null ? wrote.vars() : state.vars())
                    .holds(wrote.holds() != null ? wrote.holds() : state.holds())
                    .build();
            case RunFact.NodeSucceeded succeeded -> succeeded(state, succeeded);
            case RunFact.NodeWaiting waiting -> state.edit()
                    .state(RunInstance.State.WAITING).waitingNode(waiting.nodeId())
                    .nodes(with(state.nodes(), waiting.nodeId(), NodeStatus.WAITING))
                    .build();
            case RunFact.NodeResumed resumed -> state.edit()
                    .state(RunInstance.State.RUNNING).waitingNode(null)
                    .build();
            case RunFact.NodeSleeping sleeping -> state.edit()
                    .state(RunInstance.State.SLEEPING).timer(sleeping.timer())
                    .build();
            case RunFact.NodeRetrying retrying -> state.edit()
                    .state(RunInstance.State.RETRYING).timer(retrying.timer())
                    .build();
            case RunFact.TimerFired fired -> {
                RunInstance.Builder next = state.edit().timer(null).state(RunInstance.State.RUNNING);
                if (fired.timer().kind().equals("retry")) {
                    List<String> ready = new ArrayList<>(state.ready().size() + 1);
                    ready.add(fired.timer().nodeId());
                    ready.addAll(state.ready());
                    next.ready(ready);
                }
                yield next.build();
            }
            case RunFact.NodeFailed failed -> state.edit()
                    .nodes(with(state.nodes(), failed.nodeId(), NodeStatus.FAILED))
                    .build();
            case RunFact.NodeRolledBack rolledBack -> state.edit()
                    .nodes(with(state.nodes(), rolledBack.nodeId(), NodeStatus.ROLLED_BACK))
                    .build();
            case RunFact.RunFailed failed -> state.edit()
                    .rollback(failed.rollback()).state(RunInstance.State.ERRORED).status(OrderStatus.FAILED)
                    .reason(failed.reason()).ready(List.of())
                    .build();
            case RunFact.RunEnded ended -> ended(state, ended);
            case RunFact.RunTerminated terminated -> state.edit()
                    .state(RunInstance.State.TERMINATED).timer(null).ready(List.of()).waitingNode(null)
                    .build();
            case RunFact.IncidentRaised incident -> state.edit()
                    .state(RunInstance.State.TERMINATED).status(OrderStatus.FAILED).reason(incident.cause())
                    .timer(null).ready(List.of()).waitingNode(null)
                    .build();
            case RunFact.SetAside setAside -> state.edit().setAside(setAside.stood()).build();
            case RunFact.Revived revived -> revived.stood().edit().holds(state.holds()).setAside(null).build();
            case RunFact.RunContinued continued -> state.edit()
                    .instanceId(continued.instanceId()).generation(continued.generation()).seq(0).steps(0)
                    .build();
            case RunFact.RunMigrated migrated -> migrated(state, migrated);
            case RunFact.ProgressSent sent -> state.edit().seq(sent.seq()).build();
        };
    }

    /**
     * The waiting instance goes on with the new version: every node, edge, output, attempt count, completed node and
     * hold is renamed through the mapping (a node the mapping does not keep is forgotten: it will not run, and a later
     * rollback does not compensate it, though what it holds is still given back); the new version's nodes that no old
     * node became are pending; an edge keeps its state when the new version has an edge with its id.
     */
    private static RunInstance migrated(RunInstance state, RunFact.RunMigrated migrated) {
        Map<String, String> to = migrated.mapping();
        Map<String, String> becameFrom = new HashMap<>();
        to.forEach((from, target) -> becameFrom.put(target, from));
        Map<String, NodeStatus> nodes = new LinkedHashMap<>();
        migrated.nodes().forEach(id -> nodes.put(id, becameFrom.containsKey(id)
                ? state.nodes().getOrDefault(becameFrom.get(id), NodeStatus.PENDING) : NodeStatus.PENDING));
        Map<String, EdgeState> edges = new LinkedHashMap<>();
        migrated.edges().forEach(id -> edges.put(id, state.edges().getOrDefault(id, EdgeState.PENDING)));
        ObjectNode outputs = Json.object();
        to.forEach((from, target) -> {
            if (state.outputs() != null && state.outputs().has(from)) {
                outputs.set(target, state.outputs().get(from));
            }
        });
        return state.edit().flow(migrated.flow()).nodes(handOver(nodes)).edges(handOver(edges)).outputs(outputs)
                .ready(state.ready().stream().filter(to::containsKey).map(to::get).toList())
                .completed(state.completed().stream().filter(to::containsKey).map(to::get).toList())
                .attempts(renamed(state.attempts(), to)).runs(renamed(state.runs(), to))
                .holds(state.holds().stream().map(h -> to.containsKey(h.nodeId())
                        ? new Hold(h.kind(), h.id(), to.get(h.nodeId()), h.open()) : h).toList())
                .waitingNode(to.get(state.waitingNode()))
                .build();
    }

    /** The entries of the nodes {@code to} keeps, under their new ids. */
    private static <V> Map<String, V> renamed(Map<String, V> byNode, Map<String, String> to) {
        Map<String, V> renamed = new LinkedHashMap<>();
        byNode.forEach((id, value) -> {
            if (to.containsKey(id)) {
                renamed.put(to.get(id), value);
            }
        });
        return handOver(renamed);
    }

    private static RunInstance entered(RunInstance state, String nodeId) {
        List<String> ready = new ArrayList<>(state.ready());
        ready.remove(nodeId);
        Map<String, Integer> attempts = new LinkedHashMap<>(state.attempts());
        int attempt = attempts.merge(nodeId, 1, Integer::sum);
        RunInstance.Builder next = state.edit().ready(ready).attempts(handOver(attempts))
                .steps(state.steps() + 1).nodes(with(state.nodes(), nodeId, NodeStatus.RUNNING));
        if (attempt == 1) {
            // a retry repeats the same run; only entering the node anew (e.g. a loop back to it) starts the next one
            Map<String, Integer> runs = new LinkedHashMap<>(state.runs());
            runs.merge(nodeId, 1, Integer::sum);
            next.runs(handOver(runs));
        }
        return next.build();
    }

    private static RunInstance succeeded(RunInstance state, RunFact.NodeSucceeded succeeded) {
        String nodeId = succeeded.nodeId();
        Map<String, NodeStatus> nodes = new LinkedHashMap<>(state.nodes());
        nodes.put(nodeId, NodeStatus.SUCCEEDED);
        Map<String, Integer> attempts = new LinkedHashMap<>(state.attempts());
        attempts.remove(nodeId);
        List<String> completed = new ArrayList<>(state.completed());
        completed.add(nodeId);
        Map<String, EdgeState> edges = new LinkedHashMap<>(state.edges());
        edges.putAll(succeeded.edges());
        List<String> ready = new ArrayList<>(state.ready());
        for (String next : succeeded.next()) {
            nodes.put(next, NodeStatus.PENDING);
            ready.add(next);
        }
        return state.edit().nodes(handOver(nodes)).outputs(withOutput(state.outputs(), nodeId, succeeded.output()))
                .attempts(handOver(attempts)).completed(completed).edges(handOver(edges)).ready(ready)
                .build();
    }

    private static RunInstance ended(RunInstance state, RunFact.RunEnded ended) {
        Map<String, NodeStatus> nodes = new LinkedHashMap<>(state.nodes());
        nodes.put(ended.nodeId(), NodeStatus.SUCCEEDED);
        nodes.replaceAll((id, s) -> s == NodeStatus.PENDING ? NodeStatus.SKIPPED : s);
        Map<String, EdgeState> edges = new LinkedHashMap<>(state.edges());
        edges.replaceAll((id, s) -> s == EdgeState.PENDING ? EdgeState.INACTIVE : s);
        List<String> completed = new ArrayList<>(state.completed());
        completed.add(ended.nodeId());
        return state.edit().state(RunInstance.State.COMPLETE).status(ended.status()).reason(ended.reason())
                .nodes(handOver(nodes)).edges(handOver(edges)).completed(completed).ready(List.of())
                .outputs(withOutput(state.outputs(), ended.nodeId(), ended.output()))
                .build();
    }

    /** The outputs with {@code nodeId}'s set: a new object sharing the (never changed) outputs of the others. */
    private static ObjectNode withOutput(ObjectNode outputs, String nodeId, JsonNode output) {
        ObjectNode next = Json.object();
        if (outputs != null) {
            next.setAll(outputs);
        }
        next.set(nodeId, output);
        return next;
    }

    private static <V> Map<String, V> with(Map<String, V> map, String key, V value) {
        Map<String, V> next = new LinkedHashMap<>(map);
        next.put(key, value);
        return handOver(next);
    }

    /** A map just made for the next instance, read-only, so the instance keeps it instead of copying it again. */
    private static <K, V> Map<K, V> handOver(Map<K, V> fresh) {
        return Collections.unmodifiableMap(fresh);
    }
}
