package io.orderflow.processor.order;

import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.Rollback;
import io.orderflow.schemas.model.TimelineEntry;
import io.orderflow.schemas.reports.RunReport;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Applies facts to an order's state: small pure functions, each answering a new copy. */
public final class OrderApplier {

    /** Node types that never run a timer: their starts and ends write no run record. */
    public static final Set<String> UNTIMED_TYPES = Set.of("end", "control.wait");

    /** The key prefix of the timeline's status entries, {@code status:<generation>:<status>}. */
    static final String STATUS_KEY = "status:";

    private OrderApplier() {
    }

    /** Applies every fact in turn; a change bumps the private version and {@code updatedAt}. */
    public static OrderState applyAll(OrderState state, List<OrderFact> facts, long now) {
        OrderState next = state;
        for (OrderFact fact : facts) {
            next = apply(next, fact);
        }
        if (facts.isEmpty() || next == null) {
            return next;
        }
        return next.edit().version(state == null ? 1 : state.version() + 1).updatedAt(now).build();
    }

    public static OrderState apply(OrderState state, OrderFact fact) {
        return switch (fact) {
            case OrderFact.OrderStarted started -> started.state();
            case OrderFact.ProgressApplied progress -> progress(state, progress.report(), progress.at());
            case OrderFact.NodePatched patched -> patched(state, patched);
            case OrderFact.WaitOpened opened -> waitOpened(state, opened.opened(), opened.at());
            case OrderFact.WaitClosed closed -> waitClosed(state, closed);
            case OrderFact.OrderCancelled cancelled -> state.edit()
                    .status(OrderStatus.CANCELLED).reason(cancelled.reason()).waits(List.of())
                    .nodes(OrderState.handOver(cutShort(state, cancelled.at())))
                    .timeline(state.timelineWith(new TimelineEntry(cancelled.at(), "cancel",
                            "Cancelled by " + (cancelled.batchId() != null ? "batch " + cancelled.batchId()
                                    : cancelled.by()) + ": " + cancelled.reason(), null,
                            withBatch(Json.object().put("reason", cancelled.reason()).put("by", cancelled.by()),
                                    cancelled.batchId()), null)))
                    .build();
            case OrderFact.BatchApplied batch -> state.withBatch(batch.batchId());
            case OrderFact.OrderMigrated migrated -> migrated(state, migrated);
            case OrderFact.RunContinued continued -> state.edit()
                    .instanceId(continued.instanceId()).generation(continued.generation()).seq(0)
                    .timeline(state.timelineWith(new TimelineEntry(continued.at(), "continued",
                            "Run continued as instance " + continued.instanceId() + " (generation "
                                    + continued.generation() + ")", null,
                            Json.object().put("previousInstanceId", continued.previousInstanceId())
                                    .put("instanceId", continued.instanceId())
                                    .put("generation", continued.generation()), null)))
                    .build();
            case OrderFact.RollbackPolled polled -> state.edit().rollbackPolls(polled.attempt()).build();
            case OrderFact.RollbackSettled settled -> {
                boolean complete = "complete".equals(settled.rollback().outcome());
                String message = complete ? "Rollback complete"
                        : "Rollback failed: " + settled.rollback().error();
                yield state.edit()
                        .rollback(settled.rollback())
                        .status(complete ? OrderStatus.ROLLED_BACK : OrderStatus.FAILED)
                        .timeline(state.timelineWith(new TimelineEntry(settled.at(), "rollback", message, null,
                                Json.tree(settled.rollback()), null)))
                        .build();
            }
            case OrderFact.ChatAppended appended -> state.withChat(appended.messages());
            case OrderFact.ProposalConfirmed confirmed -> state.edit()
                    .chat(state.chat().stream().map(m -> m.proposal() != null
                            && m.proposal().id().equals(confirmed.proposalId())
                            ? m.withProposal(m.proposal().confirmed()) : m).toList())
                    .build();
            case OrderFact.IncidentRaised incident -> incident(state, incident);
            case OrderFact.IncidentRetried retried -> retried.stood().edit()
                    .timeline(state.timelineWith(new TimelineEntry(retried.at(), "incident",
                            "Incident retried by " + (retried.batchId() != null ? "batch " + retried.batchId()
                                    : retried.by()), null, withBatch(Json.object()
                            .put("incidentId", retried.incidentId()).put("action", "retried")
                            .put("by", retried.by()), retried.batchId()), null)))
                    .chat(state.chat())
                    .batches(state.batches())
                    .build();
            case OrderFact.IncidentDismissed dismissed -> state.edit()
                    .timeline(state.timelineWith(new TimelineEntry(dismissed.at(), "incident",
                            "Incident dismissed by " + dismissed.by() + ": " + dismissed.note(), null, Json.object()
                            .put("incidentId", dismissed.incidentId()).put("action", "dismissed")
                            .put("by", dismissed.by()).put("note", dismissed.note()), null)))
                    .build();
            case OrderFact.CompensationLogged c -> state.edit()
                    .timeline(state.timelineWith(new TimelineEntry(c.at(), "compensation",
                            "Compensated: " + c.released() + " held stock released, " + c.voided()
                                    + " authorizations voided, " + c.shipmentsCancelled() + " shipments cancelled",
                            null, Json.object().put("released", c.released()).put("voided", c.voided())
                            .put("shipmentsCancelled", c.shipmentsCancelled()), null)))
                    .build();
        };
    }

    /** {@code data} with the batch that made the change, when a batch did. */
    private static ObjectNode withBatch(ObjectNode data, String batchId) {
        return batchId == null ? data : data.put("batchId", batchId);
    }

    /**
     * The order on its new flow version: each node of the new version has the state of the node that became it (or is
     * pending), the waits are re-keyed, the edges are the new version's; the timeline says from which version to which,
     * who, and which nodes were renamed.
     */
    private static OrderState migrated(OrderState state, OrderFact.OrderMigrated migrated) {
        Map<String, String> becameFrom = new LinkedHashMap<>();
        migrated.carried().forEach((from, to) -> becameFrom.put(to, from));
        Map<String, NodeState> nodes = new LinkedHashMap<>();
        migrated.flow().graph().nodes().forEach(n -> {
            String from = becameFrom.get(n.id());
            nodes.put(n.id(), from == null ? NodeState.pending() : state.nodes().getOrDefault(from, NodeState.pending()));
        });
        List<Wait> waits = state.waits().stream().map(w -> new Wait(migrated.carried().getOrDefault(w.nodeId(),
                w.nodeId()), w.kind(), w.title(), w.event(), w.assignee(), w.amount(), w.deadline(), w.since()))
                .toList();
        ObjectNode renamed = Json.object();
        List<String> renames = new ArrayList<>();
        new java.util.TreeMap<>(migrated.carried()).forEach((from, to) -> {
            if (!from.equals(to)) {
                renamed.put(from, to);
                renames.add(from + " → " + to);
            }
        });
        String flowId = migrated.flow().flowId();
        int toVersion = migrated.flow().version();
        String message = "Migrated from version " + migrated.fromVersion() + " to version " + toVersion + " of flow "
                + flowId + " by " + (migrated.batchId() != null ? "batch " + migrated.batchId() : migrated.by())
                + (renames.isEmpty() ? "" : ": " + String.join(", ", renames));
        ObjectNode data = Json.object().put("flowId", flowId).put("fromVersion", migrated.fromVersion())
                .put("toVersion", toVersion).put("by", migrated.by());
        data.set("mapping", renamed);
        return state.edit().flow(migrated.flow()).nodes(OrderState.handOver(nodes))
                .edges(OrderState.handOver(new LinkedHashMap<>(migrated.edges()))).waits(waits)
                .timeline(state.timelineWith(new TimelineEntry(migrated.at(), "migrate", message, null,
                        withBatch(data, migrated.batchId()), null)))
                .build();
    }

    /** Node statuses a cancel cuts short: the node will not run (any more), so it shows {@code skipped}. */
    private static final Set<NodeStatus> UNFINISHED = Set.of(NodeStatus.PENDING, NodeStatus.RUNNING,
            NodeStatus.WAITING);

    /**
     * The nodes after a cancel: every node of the plan that had not finished is {@code skipped}, its open run ended at
     * the cancel; nodes that finished keep their status.
     */
    private static Map<String, NodeState> cutShort(OrderState state, long at) {
        Map<String, NodeState> nodes = new LinkedHashMap<>(state.nodes());
        nodes.replaceAll((id, node) -> UNFINISHED.contains(node.status())
                ? node.withStatus(NodeStatus.SKIPPED).endRun(at) : node);
        return nodes;
    }

    /** Why an order that became an incident was not rolled back. */
    public static final String INCIDENT_NOT_ROLLED_BACK =
            "Not rolled back: the order was set aside as an incident; what the run held was given back";

    private static OrderState incident(OrderState state, OrderFact.IncidentRaised incident) {
        String message = "Incident: " + incident.cause();
        OrderState.Builder next = state.edit().timeline(state.timelineWith(new TimelineEntry(incident.at(),
                "incident", message, null, Json.object().put("source", incident.source()), null)));
        if (!state.status().terminal()) {
            next.status(OrderStatus.FAILED).reason(message).waits(List.of())
                    .rollback(new Rollback("failed", INCIDENT_NOT_ROLLED_BACK));
        }
        return next.build();
    }

    private static OrderState progress(OrderState state, RunReport.Progress report, long at) {
        OrderState.Builder next = state.edit()
                .generation(report.generation()).seq(report.seq());
        if (report.instanceId() != null) {
            next.instanceId(report.instanceId());
        }
        if (report.nodes() != null) {
            // a report the run sent before it heard of the cancel does not bring a skipped node back
            boolean cutShort = state.status() == OrderStatus.CANCELLED;
            Map<String, NodeState> nodes = new LinkedHashMap<>(state.nodes());
            report.nodes().forEach((id, status) -> {
                NodeState node = nodes.getOrDefault(id, NodeState.pending());
                boolean settled = node.status() == NodeStatus.ROLLED_BACK || node.status() == NodeStatus.FAILED
                        || cutShort && node.status() == NodeStatus.SKIPPED && status != NodeStatus.ROLLED_BACK;
                if (!settled) {
                    nodes.put(id, node.withStatus(status));
                }
            });
            next.nodes(OrderState.handOver(nodes));
        }
        if (report.edges() != null) {
            Map<String, EdgeState> edges = new LinkedHashMap<>(state.edges());
            edges.putAll(report.edges());
            next.edges(OrderState.handOver(edges));
        }
        if (report.order() != null) {
            next.order(report.order());
        }
        if (report.vars() != null) {
            next.vars(report.vars());
        }
        boolean reopens = state.status().terminal();
        if (!reopens && report.status() != null && report.status() != state.status()) {
            next.status(report.status());
            if (report.reason() != null) {
                next.reason(report.reason());
            }
            String message = "Order " + report.status().wire()
                    + (report.reason() != null ? ": " + report.reason() : "");
            next.timeline(state.timelineWith(new TimelineEntry(at, "status", message, null, null,
                    STATUS_KEY + report.generation() + ":" + report.status().wire())));
        }
        return next.build();
    }

    /** End and {@code control.wait} nodes are not timed; a node the pinned flow does not know is. */
    static boolean timed(OrderState state, String nodeId) {
        String type = state.nodeType(nodeId);
        return type == null || !UNTIMED_TYPES.contains(type);
    }

    private static OrderState patched(OrderState state, OrderFact.NodePatched patched) {
        Map<String, NodeState> nodes = new LinkedHashMap<>(state.nodes());
        NodeState node = nodes.getOrDefault(patched.nodeId(), NodeState.pending());
        boolean timed = timed(state, patched.nodeId());
        nodes.put(patched.nodeId(), patched.patch() == null ? node : node.patch(patched.patch(), timed));
        OrderState.Builder next = state.edit().nodes(OrderState.handOver(nodes));
        if (patched.log() != null) {
            TimelineEntry log = patched.log();
            // a node's log entry is the node's: it names the node, and it cannot take a status entry's key
            String key = log.key() != null && log.key().startsWith(STATUS_KEY) ? null : log.key();
            next.timeline(state.timelineWith(log.nodeId() != null && key == log.key() ? log
                    : new TimelineEntry(log.at(), log.kind(), log.message(),
                    log.nodeId() != null ? log.nodeId() : patched.nodeId(), log.data(), key)));
        }
        return next.build();
    }

    private static OrderState waitOpened(OrderState state, Wait wait, long at) {
        List<Wait> waits = new ArrayList<>(state.waits());
        waits.add(wait);
        Map<String, NodeState> nodes = new LinkedHashMap<>(state.nodes());
        if (timed(state, wait.nodeId())) {
            nodes.put(wait.nodeId(), nodes.getOrDefault(wait.nodeId(), NodeState.pending()).startRun(wait.since()));
        }
        return state.edit().waits(waits).nodes(OrderState.handOver(nodes))
                .timeline(state.timelineWith(new TimelineEntry(at, "open:" + wait.event(),
                        "Waiting: " + wait.title(), wait.nodeId(), null, null)))
                .build();
    }

    /**
     * "Approve order ord_1: approved by ann@example.com, note: Looks fine" for a decision, "Await payment: received
     * (reference TX-1, 120.00 USD)" for a payment with a reference, otherwise the title and the branch; followed by
     * "(batch bat_1)" when a batch closed it. The entry's {@code data} is the payload itself (with {@code batchId} for
     * a batch), so {@code by}, {@code note}, {@code reference} and {@code amount} are there as fields too.
     */
    static String closeMessage(OrderState state, Wait wait, OrderFact.WaitClosed closed) {
        String message = closedBy(state, wait, closed);
        return closed.batchId() == null ? message : message + " (batch " + closed.batchId() + ")";
    }

    private static String closedBy(OrderState state, Wait wait, OrderFact.WaitClosed closed) {
        String message = wait.title() + ": " + closed.branch();
        JsonNode payload = closed.payload();
        if (payload == null) {
            return message;
        }
        if (wait.isApproval() && payload.hasNonNull("decision") && payload.hasNonNull("by")) {
            message += " by " + payload.get("by").asString();
            if (payload.hasNonNull("note") && !payload.get("note").asString().isBlank()) {
                message += ", note: " + payload.get("note").asString();
            }
            return message;
        }
        String currency = state.order() != null && state.order().hasNonNull("currency")
                ? state.order().get("currency").asString() : null;
        String reference = PaymentReference.describe(payload, currency);
        return reference == null ? message : message + " (" + reference + ")";
    }

    private static OrderState waitClosed(OrderState state, OrderFact.WaitClosed closed) {
        Wait wait = state.waitAt(closed.nodeId()).orElseThrow();
        List<Wait> waits = new ArrayList<>(state.waits());
        waits.remove(wait);
        OrderState.Builder next = state.edit().waits(waits)
                .timeline(state.timelineWith(new TimelineEntry(closed.at(), "close:" + wait.event(),
                        closeMessage(state, wait, closed), wait.nodeId(), closed.batchId() != null
                        && closed.payload() instanceof ObjectNode payload
                        ? withBatch(payload.deepCopy(), closed.batchId()) : closed.payload(), null)));
        if (closed.varsKey() != null) {
            ObjectNode vars = state.vars() instanceof ObjectNode object ? object.deepCopy() : Json.object();
            vars.set(closed.varsKey(), closed.payload());
            next.vars(vars);
        }
        return next.build();
    }
}
