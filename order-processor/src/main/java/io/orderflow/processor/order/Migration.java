package io.orderflow.processor.order;

import io.orderflow.schemas.flows.EdgeDefinition;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.flows.NodeDefinition;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.tasks.NodeTask;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decides a migration of one order to another version of its flow, the way Camunda migrates a process instance: a
 * mapping from the order's node ids to the new version's (a node not named keeps its id when the new version has it),
 * refused when a node the order stands at would be dropped or change type. The order stands still only while it
 * waits (the runner moves on by itself otherwise), so only a waiting order is migrated; its open waits, their
 * approval rows and deadlines are re-keyed through the mapping, and the runner is told to go on with the new version.
 */
final class Migration {

    private Migration() {
    }

    /**
     * The decision: a refusal, the dry run's answer (nothing changes), or the {@link OrderFact.OrderMigrated} fact with
     * the re-keyed approvals and deadlines and the runner's {@link NodeTask.MigrateRun}. Both answers have the same
     * body: what happens to each node, wait and edge.
     */
    static Decision decide(OrderState state, FlowVersion to, Map<String, String> mapping, boolean dryRun, String by,
                           String batchId, long now) {
        FlowVersion from = state.flow();
        if (state.status().terminal()) {
            return Decision.rejected(Rejection.ended(state.orderId(), state.status().wire()));
        }
        if (!from.flowId().equals(to.flowId())) {
            return Decision.rejected(Rejection.otherFlow(state.orderId(), from.flowId(), to.flowId()));
        }
        String type = state.order() == null ? null : state.order().path("type").asString(null);
        String toType = to.graph().orderType() == null ? null : to.graph().orderType().wire();
        if (type != null && toType != null && !type.equals(toType)) {
            return Decision.rejected(Rejection.otherOrderType(state.orderId(), type, to.flowId(), to.version(),
                    toType));
        }
        if (from.version() == to.version()) {
            return Decision.rejected(Rejection.sameVersion(state.orderId(), from.flowId(), from.version()));
        }
        Map<String, String> oldTypes = types(from);
        Map<String, String> newTypes = types(to);
        for (Map.Entry<String, String> entry : mapping.entrySet()) {
            if (!oldTypes.containsKey(entry.getKey())) {
                return Decision.rejected(Rejection.unknownSource(entry.getKey(), from.flowId(), from.version()));
            }
            if (!newTypes.containsKey(entry.getValue())) {
                return Decision.rejected(Rejection.unknownTarget(entry.getKey(), entry.getValue(), to.flowId(),
                        to.version()));
            }
        }
        Map<String, String> carried = new LinkedHashMap<>();
        Map<String, String> takenBy = new LinkedHashMap<>();
        for (String id : oldTypes.keySet()) {
            String target = mapping.containsKey(id) ? mapping.get(id) : newTypes.containsKey(id) ? id : null;
            if (target == null) {
                continue;
            }
            String other = takenBy.putIfAbsent(target, id);
            if (other != null) {
                return Decision.rejected(Rejection.sameTarget(other, id, target));
            }
            carried.put(id, target);
        }
        if (state.status() != OrderStatus.WAITING || state.waits().isEmpty()) {
            return Decision.rejected(Rejection.notWaitingToMigrate(state.orderId(), state.status().wire()));
        }
        for (String standing : standing(state)) {
            String target = carried.get(standing);
            if (target == null) {
                return Decision.rejected(Rejection.nodeDropped(state.orderId(), standing, to.flowId(), to.version()));
            }
            String oldType = oldTypes.get(standing);
            if (oldType != null && !oldType.equals(newTypes.get(target))) {
                return Decision.rejected(Rejection.nodeTypeChanged(state.orderId(), standing, oldType, target,
                        newTypes.get(target), to.version()));
            }
        }
        Map<String, EdgeState> edges = new LinkedHashMap<>();
        if (to.graph().edges() != null) {
            for (EdgeDefinition edge : to.graph().edges()) {
                edges.put(edge.id(), state.edges().getOrDefault(edge.id(), EdgeState.PENDING));
            }
        }
        ObjectNode answer = answer(state, to, carried, newTypes.keySet(), dryRun);
        if (dryRun) {
            return Decision.none().replying(200, answer);
        }
        List<Effect> effects = new ArrayList<>();
        for (Wait wait : state.waits()) {
            String target = carried.get(wait.nodeId());
            if (target.equals(wait.nodeId())) {
                continue;
            }
            if (wait.isApproval()) {
                effects.add(new Effect.MoveApproval(wait.nodeId(), target));
            }
            effects.add(new Effect.ClearDeadline(wait.deadline(), wait.nodeId()));
            effects.add(new Effect.ScheduleDeadline(wait.deadline(), target));
        }
        effects.add(new Effect.SendTask(new NodeTask.MigrateRun(state.orderId(), state.instanceId(), to, carried)));
        return Decision.of(List.of(new OrderFact.OrderMigrated(StoredFlow.slim(to), from.version(), carried, edges,
                by, now, batchId)), effects).replying(200, answer.put("ok", true));
    }

    /** The nodes the order stands at: its open waits' nodes and any node running or waiting. */
    static Set<String> standing(OrderState state) {
        Set<String> standing = new LinkedHashSet<>();
        state.waits().forEach(w -> standing.add(w.nodeId()));
        state.nodes().forEach((id, node) -> {
            if (node.status() == NodeStatus.RUNNING || node.status() == NodeStatus.WAITING) {
                standing.add(id);
            }
        });
        return standing;
    }

    private static Map<String, String> types(FlowVersion flow) {
        Map<String, String> types = new LinkedHashMap<>();
        if (flow.graph() != null && flow.graph().nodes() != null) {
            for (NodeDefinition node : flow.graph().nodes()) {
                types.put(node.id(), node.type());
            }
        }
        return types;
    }

    /**
     * {@code { orderId, flowId, fromVersion, toVersion, dryRun, nodes: [{ from, to, status }], dropped: [{ id,
     * status }], added: [id], waits: [{ from, to, event, deadline }] }}.
     */
    private static ObjectNode answer(OrderState state, FlowVersion to, Map<String, String> carried,
                                     Set<String> newIds, boolean dryRun) {
        ObjectNode answer = Json.object().put("orderId", state.orderId()).put("flowId", to.flowId())
                .put("fromVersion", state.flow().version()).put("toVersion", to.version()).put("dryRun", dryRun);
        ArrayNode nodes = answer.putArray("nodes");
        ArrayNode dropped = answer.putArray("dropped");
        for (String id : types(state.flow()).keySet()) {
            String status = state.nodes().getOrDefault(id, NodeState.pending()).status().wire();
            if (carried.containsKey(id)) {
                nodes.addObject().put("from", id).put("to", carried.get(id)).put("status", status);
            } else {
                dropped.addObject().put("id", id).put("status", status);
            }
        }
        ArrayNode added = answer.putArray("added");
        newIds.stream().filter(id -> !carried.containsValue(id)).forEach(added::add);
        ArrayNode waits = answer.putArray("waits");
        for (Wait wait : state.waits()) {
            waits.addObject().put("from", wait.nodeId()).put("to", carried.get(wait.nodeId()))
                    .put("event", wait.event()).put("deadline", wait.deadline());
        }
        return answer;
    }
}
