package io.orderflow.processor.order;

import io.orderflow.processor.approvals.ApprovalRow;
import io.orderflow.processor.timers.Due;
import io.orderflow.schemas.commands.BatchAction;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.documents.Documents;
import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.ChatMessage;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.EventNames;
import io.orderflow.schemas.model.Incident;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.OrderSummary;
import io.orderflow.schemas.model.Rollback;
import io.orderflow.schemas.model.TimelineEntry;
import io.orderflow.schemas.model.WaitRequest;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Decides what a command, a run report or a timer means for one order: reads the state, answers a
 * {@link Decision}. Never changes anything itself.
 */
public final class OrderDecider {

    public static final String NOT_SETTLED = "The run did not settle in time.";

    private final AgentSettings settings;

    public OrderDecider(AgentSettings settings) {
        this.settings = settings;
    }

    // ---- commands -------------------------------------------------------------------------------------------

    /** {@code state} is {@code null} for an unknown order; the caller is not known (recorded as {@code api}). */
    public Decision decide(OrderState state, OrderCommand command, long now) {
        return decide(state, command, null, now);
    }

    /**
     * {@code state} is {@code null} for an unknown order; {@code caller} is who sent the command, as the gateway
     * authenticated them ({@code null} when not known), recorded as who cancelled.
     */
    public Decision decide(OrderState state, OrderCommand command, Caller caller, long now) {
        if (state == null && !(command instanceof OrderCommand.StartOrder)) {
            return Decision.rejected(Rejection.notFound(command.orderId()));
        }
        Long expected = expectedVersion(command);
        if (expected != null && expected != state.version()) {
            return Decision.rejected(Rejection.staleVersion(state.orderId(), expected, state.version()));
        }
        return switch (command) {
            case OrderCommand.StartOrder start -> start(state, start, now);
            case OrderCommand.DeliverEvent deliver -> deliver(state, deliver.event(), deliver.payload(), null, now);
            case OrderCommand.DecideApproval decide -> decideApproval(state, decide.nodeId(), decide.decision(),
                    decide.by(), decide.note(), null, now);
            case OrderCommand.CancelOrder cancel -> cancel(state, cancel.reason(), actor(caller), null, now);
            case OrderCommand.ApplyBatchAction batch -> batchAction(state, batch, caller, now);
            case OrderCommand.MigrateOrder migrate -> Migration.decide(state, migrate.to(), migrate.mapping(),
                    migrate.dryRun(), actor(caller), null, now);
            case OrderCommand.AppendChat append -> appendChat(append, now);
            case OrderCommand.ConfirmProposal confirm -> confirmProposal(state, confirm);
            case OrderCommand.RetryIncident retry -> throw new IllegalArgumentException(
                    "A retry is decided with its incident (retryIncident)");
            case OrderCommand.DismissIncident dismiss -> throw new IllegalArgumentException(
                    "A dismissal is decided with its incident (dismissIncident)");
        };
    }

    /**
     * The version a command says the order must be at ({@code If-Match}), or {@code null} when it says none. Checked
     * here, on the state the command is decided on, so nothing can change the order between the check and the change.
     */
    static Long expectedVersion(OrderCommand command) {
        return switch (command) {
            case OrderCommand.DecideApproval decide -> decide.expectedVersion();
            case OrderCommand.CancelOrder cancel -> cancel.expectedVersion();
            default -> null;
        };
    }

    // ---- batches --------------------------------------------------------------------------------------------

    /**
     * One order's part of a batch. A batch that acted on the order before (its command sent again after a restart) is
     * answered 200 {@code {ok, replayed}} and changes nothing. Otherwise the action is decided as its own command is,
     * except that what would change nothing is refused (409: an ended order to cancel, no node waiting for the event
     * or the approval), so the batch counts it as failed with the reason; a change names the batch in the timeline
     * and remembers it. An incident retry is decided with its incident ({@link #retryIncident}).
     */
    Decision batchAction(OrderState state, OrderCommand.ApplyBatchAction batch, Caller caller, long now) {
        if (state.batches().contains(batch.batchId())) {
            return replayed(batch.batchId());
        }
        Decision decision = switch (batch.action()) {
            case BatchAction.Cancel cancel -> state.status().terminal()
                    ? Decision.rejected(Rejection.ended(state.orderId(), state.status().wire()))
                    : cancel(state, cancel.reason(), actor(caller), batch.batchId(), now);
            case BatchAction.DeliverEvent deliver -> waitingFor(state, deliver.event()) == null
                    ? Decision.rejected(Rejection.notWaitingForEvent(state.orderId(), deliver.event()))
                    : deliver(state, deliver.event(), deliver.payload(), batch.batchId(), now);
            case BatchAction.DecideApproval decide -> decideApproval(state, decide.nodeId(), decide.decision(),
                    decide.by(), decide.note(), batch.batchId(), now);
            case BatchAction.RetryIncident retry -> throw new IllegalArgumentException(
                    "A batch's retry is decided with the order's incident (retryIncident)");
            case BatchAction.Migrate migrate -> Migration.decide(state, migrate.flow(), migrate.mapping(),
                    migrate.dryRun(), actor(caller), batch.batchId(), now);
        };
        return applied(decision, batch.batchId());
    }

    /** What a batch's repeated command is answered: done, nothing changed. */
    public static Decision replayed(String batchId) {
        return Decision.none().replying(200, Json.object().put("ok", true).put("replayed", true)
                .put("batchId", batchId));
    }

    /** {@code decision} with the batch remembered when it changes the order. */
    public static Decision applied(Decision decision, String batchId) {
        if (!decision.changesState()) {
            return decision;
        }
        List<OrderFact> facts = new ArrayList<>(decision.facts());
        facts.add(new OrderFact.BatchApplied(batchId));
        return new Decision(facts, decision.effects(), decision.reply());
    }

    // ---- incidents ------------------------------------------------------------------------------------------

    /**
     * An operator retries an open incident ({@code null} when there is none by that id): the order is put back as it
     * stood when it was set aside, with its approvals reopened and their deadlines set again, and the incident is
     * {@code resolved} with the retry in its history. Applying the record again follows: the agent does it for a
     * record of its own; for the runner's, the runner is told to put its instance back and handle the task again.
     * A failure on the way makes the same incident open again with the new cause.
     */
    public Decision retryIncident(OrderState state, String incidentId, Incident incident, Caller caller, long now) {
        return retryIncident(state, incidentId, incident, caller, null, now);
    }

    /** {@link #retryIncident(OrderState, String, Incident, Caller, long)} as part of batch {@code batchId}. */
    public Decision retryIncident(OrderState state, String incidentId, Incident incident, Caller caller,
                                  String batchId, long now) {
        Optional<Rejection> refused = refusal(state, incidentId, incident);
        if (refused.isPresent()) {
            return Decision.rejected(refused.get());
        }
        if (incident.stood() == null || (incident.record() == null && !fromRunner(incident))) {
            return Decision.rejected(Rejection.incidentWithoutRecord(incidentId));
        }
        String by = actor(caller);
        OrderState stood = Json.MAPPER.treeToValue(incident.stood(), OrderState.class);
        List<Effect> effects = new ArrayList<>();
        effects.add(new Effect.RecordIncident(incident.then(Incident.RESOLVED,
                new Incident.Step(now, "retried", by, null, batchId == null ? null : "batch " + batchId))));
        if (!stood.status().terminal()) {
            for (Wait wait : stood.waits()) {
                if (wait.isApproval()) {
                    effects.add(new Effect.OpenApproval(new ApprovalRow(state.orderId(), wait.nodeId(),
                            wait.title(), wait.assignee(), wait.amount(), ApprovalRow.PENDING, now, null, null, null,
                            text(stood.order(), "title"), text(stood.order(), "currency"), wait.deadline())));
                }
                effects.add(new Effect.ScheduleDeadline(wait.deadline(), wait.nodeId()));
            }
        }
        String instanceId = fromRunner(incident) ? incident.instanceId() : stood.instanceId();
        if (fromRunner(incident) || (instanceId != null && !stood.status().terminal())) {
            // the runner set the run aside itself, or was told to end it when the order was: it puts it back
            effects.add(new Effect.SendTask(new NodeTask.ReviveRun(state.orderId(), instanceId,
                    fromRunner(incident) ? incident.record() : null)));
        }
        return Decision.of(List.of(new OrderFact.IncidentRetried(incidentId, stood, by, now, batchId)), effects);
    }

    /** An operator dismisses an open incident with a note: the order stays as it is; the timeline says who and why. */
    public Decision dismissIncident(OrderState state, String incidentId, Incident incident, Caller caller,
                                    String note, long now) {
        Optional<Rejection> refused = refusal(state, incidentId, incident);
        if (refused.isPresent()) {
            return Decision.rejected(refused.get());
        }
        String by = actor(caller);
        Incident dismissed = incident.then(Incident.DISMISSED, new Incident.Step(now, "dismissed", by, null, note));
        return Decision.of(List.of(new OrderFact.IncidentDismissed(incidentId, by, note, now)),
                        List.of(new Effect.RecordIncident(dismissed)))
                .replying(200, Json.tree(dismissed.listed()));
    }

    private static Optional<Rejection> refusal(OrderState state, String incidentId, Incident incident) {
        if (state == null || incident == null || !incident.orderId().equals(state.orderId())) {
            return Optional.of(Rejection.unknownIncident(incidentId));
        }
        if (!incident.open()) {
            return Optional.of(Rejection.incidentClosed(incidentId, incident.status()));
        }
        return Optional.empty();
    }

    /** Whether the runner raised the incident (its record is the runner's task). */
    public static boolean fromRunner(Incident incident) {
        return incident.source().startsWith(RUNNER_SOURCE);
    }

    private static final String RUNNER_SOURCE = "flow-runner ";

    private Decision start(OrderState state, OrderCommand.StartOrder start, long now) {
        if (state != null) {
            // Store and start task commit in one transaction, so a recorded order always has its run started.
            return state.fingerprint() != null && state.fingerprint().equals(start.fingerprint())
                    ? Decision.none().replying(200, Json.object().put("orderId", state.orderId()).put("replayed", true))
                    : Decision.rejected(Rejection.IDEMPOTENCY_KEY_REUSED);
        }
        OrderState initial = initialState(start, now);
        String text = documentText(start);
        NodeTask startRun = new NodeTask.StartRun(start.orderId(), initial.instanceId(), start.flow(),
                initial.order(), initial.vars(), text);
        List<Effect> effects = text == null ? List.of(new Effect.SendTask(startRun))
                : List.of(new Effect.StoreDocument(Documents.ref(text), text), new Effect.SendTask(startRun));
        return Decision.of(List.of(new OrderFact.OrderStarted(initial)), effects)
                .replying(201, Json.object().put("orderId", start.orderId()));
    }

    static OrderState initialState(OrderCommand.StartOrder start, long now) {
        FlowVersion flow = start.flow();
        FlowDefinition graph = flow.graph();
        Map<String, NodeState> nodes = new LinkedHashMap<>();
        graph.nodes().forEach(n -> nodes.put(n.id(), NodeState.pending()));
        Map<String, EdgeState> edges = new LinkedHashMap<>();
        if (graph.edges() != null) {
            graph.edges().forEach(e -> edges.put(e.id(), EdgeState.PENDING));
        }
        String flowName = graph.name() != null ? graph.name() : flow.flowId();
        TimelineEntry first = new TimelineEntry(now, "start",
                "Started on flow " + flowName + " (" + flow.flowId() + ") version " + flow.version(), null,
                Json.object().put("flowId", flow.flowId()).put("version", flow.version()), null);
        JsonNode vars = start.vars() instanceof ObjectNode ? start.vars() : Json.object();
        // the contract: the "first timeline entry names the flow and version"; where a mail came from follows it
        List<TimelineEntry> timeline = start.source() == null ? List.of(first) : List.of(first, received(start, now));
        return new OrderState(start.orderId(), OrderStatus.QUEUED, null, orderObject(start, flowName),
                StoredFlow.slim(flow), nodes,
                edges, List.of(), vars, timeline, List.of(), start.orderId() + ".1", 1, null, 0,
                start.fingerprint(), 0, now, now, 1, List.of());
    }

    /** "Received by mail from a@b.com at orders@example.com": where an order that did not come by the API came from. */
    private static TimelineEntry received(OrderCommand.StartOrder start, long now) {
        var source = start.source();
        return new TimelineEntry(now, "received",
                "Received by " + source.channel() + " from " + source.from() + " at " + source.mailbox(), null,
                Json.tree(source), null);
    }

    /** The start request's {@code input.documentText}, or null. */
    private static String documentText(OrderCommand.StartOrder start) {
        JsonNode text = start.input() == null ? null : start.input().get(Documents.TEXT_FIELD);
        return text != null && text.isString() ? text.asString() : null;
    }

    /**
     * The order object the run works on: {@code id, type, title, customerId, currency, lines, documentRef, meta}.
     * The document's text is stored once by its reference ({@link Documents}).
     */
    static ObjectNode orderObject(OrderCommand.StartOrder start, String flowName) {
        JsonNode input = start.input() == null ? Json.object() : start.input();
        String customerId = text(input, "customerId");
        ObjectNode order = Json.object();
        order.put("id", start.orderId());
        order.put("type", text(input, "type"));
        order.put("title", flowName + " · " + (customerId != null ? customerId : start.orderId()));
        order.put("customerId", customerId);
        String currency = text(input, "currency");
        order.put("currency", currency != null ? currency : OrderCommand.StartOrder.DEFAULT_CURRENCY);
        ArrayNode lines = order.putArray("lines");
        if (input.get("lines") instanceof ArrayNode given) {
            for (JsonNode line : given) {
                ObjectNode copy = lines.addObject();
                for (String field : List.of("sku", "name", "qty", "unitPrice")) {
                    if (line.hasNonNull(field)) {
                        copy.set(field, line.get(field));
                    }
                }
            }
        }
        if (input.get(Documents.TEXT_FIELD) instanceof JsonNode text && text.isString()) {
            order.put(Documents.REF_FIELD, Documents.ref(text.asString()));
        }
        order.set("meta", input.get("meta") instanceof ObjectNode meta ? meta : Json.object());
        return order;
    }

    /** The event wait open for {@code event}, or {@code null}. */
    private static Wait waitingFor(OrderState state, String event) {
        return state.waits().stream().filter(w -> !w.isApproval() && w.event().equals(event)).findFirst()
                .orElse(null);
    }

    private Decision deliver(OrderState state, String event, JsonNode given, String batchId, long now) {
        Wait wait = waitingFor(state, event);
        if (wait == null) {
            return Decision.none().replying(200, Json.object().put("delivered", false));
        }
        Rejection refused = PaymentReference.refusal(given, text(state.order(), "currency"));
        if (refused != null) {
            return Decision.rejected(refused);
        }
        ObjectNode payload = given instanceof ObjectNode object ? object.deepCopy() : Json.object();
        payload.put("event", event);
        payload.put("at", now);
        return Decision.of(
                        List.of(new OrderFact.WaitClosed(wait.nodeId(), "received", EventNames.varsKey(event), payload,
                                now, batchId)),
                        List.of(new Effect.ClearDeadline(wait.deadline(), wait.nodeId()),
                                resume(state, wait, "received", payload)))
                .replying(200, Json.object().put("delivered", true).put("nodeId", wait.nodeId()));
    }

    private Decision decideApproval(OrderState state, String nodeId, String decision, String decider, String note,
                                    String batchId, long now) {
        Wait wait = state.waitAt(nodeId).filter(Wait::isApproval).orElse(null);
        if (wait == null) {
            return Decision.rejected(Rejection.NOT_WAITING_FOR_APPROVAL);
        }
        String by = decider != null ? decider : "api";
        ObjectNode payload = Json.object();
        payload.put("decision", decision);
        payload.put("by", by);
        payload.put("note", note);
        payload.put("outcome", decision);
        return Decision.of(
                        List.of(new OrderFact.WaitClosed(wait.nodeId(), decision, null, payload, now, batchId)),
                        List.of(new Effect.CloseApproval(wait.nodeId(), decision, now, by, note),
                                new Effect.ClearDeadline(wait.deadline(), wait.nodeId()),
                                resume(state, wait, decision, payload)))
                .replying(200, Json.object().put("ok", true));
    }

    /**
     * Who a command came from, in words for the timeline: the caller's identity (an email, {@code token:<name>}), the
     * shared password, an open deployment, or {@code api} when the command did not say.
     */
    static String actor(Caller caller) {
        if (caller == null || caller.kind() == null) {
            return "api";
        }
        if (caller.identity() != null) {
            return caller.identity();
        }
        return switch (caller.kind()) {
            case "password" -> "shared password";
            case "open" -> "open deployment";
            default -> caller.kind();
        };
    }

    private Decision cancel(OrderState state, String given, String by, String batchId, long now) {
        if (state.status().terminal()) {
            return Decision.none().replying(200,
                    Json.object().put("ok", false).put("status", state.status().wire()));
        }
        String reason = given == null || given.isBlank() ? OrderCommand.CancelOrder.DEFAULT_REASON : given;
        List<Effect> effects = new ArrayList<>();
        for (Wait wait : state.waits()) {
            if (wait.isApproval()) {
                effects.add(new Effect.CloseApproval(wait.nodeId(), "cancelled", now, null, null));
            }
            effects.add(new Effect.ClearDeadline(wait.deadline(), wait.nodeId()));
        }
        effects.add(new Effect.SendTask(new NodeTask.TerminateRun(state.orderId(), state.instanceId(), reason)));
        ObjectNode data = Json.object();
        data.set("order", Json.tree(OrderSummary.of(state.order(), state.orderId())));
        data.put("outcome", "cancelled");
        data.put("reason", reason);
        effects.add(new Effect.PublishEvent(new OrderEvent("order.cancelled", state.orderId(), "cancel", now, data,
                settings.webhookRetries())));
        return Decision.of(List.of(new OrderFact.OrderCancelled(reason, by, now, batchId)), effects)
                .replying(200, Json.object().put("ok", true));
    }

    /** Chat takes messages on any order that exists, ended or not: people ask about finished orders too. */
    private static Decision appendChat(OrderCommand.AppendChat append, long now) {
        if (append.messages().isEmpty()) {
            return Decision.rejected(Rejection.EMPTY_CHAT);
        }
        List<ChatMessage> stamped = append.messages().stream().map(m -> m.at(now)).toList();
        return Decision.of(List.of(new OrderFact.ChatAppended(stamped)), List.of())
                .replying(200, Json.object().put("ok", true).put("appended", stamped.size()));
    }

    private static Decision confirmProposal(OrderState state, OrderCommand.ConfirmProposal confirm) {
        ChatMessage message = state.proposalMessage(confirm.proposalId()).orElse(null);
        if (message == null) {
            return Decision.rejected(Rejection.unknownProposal(confirm.proposalId()));
        }
        if (!message.proposal().open()) {
            return Decision.rejected(Rejection.proposalConfirmed(confirm.proposalId()));
        }
        return Decision.of(List.of(new OrderFact.ProposalConfirmed(confirm.proposalId())), List.of())
                .replying(200, Json.object().put("ok", true));
    }

    // ---- run reports ----------------------------------------------------------------------------------------

    /**
     * Decides one report (the agent unpacks a {@link RunReport.Batch}); reports for an unknown order change nothing.
     * A report is checked before it is applied: one that lacks what its kind needs (a node detail without a node, a
     * wait request without its request) makes the order an incident, since the run and the order no longer agree.
     * Everything else follows the contract's ordering rules: a newer generation is fresh whatever its sequence (rule
     * 1), and node details always apply, to an ended order too (rule 4).
     */
    public Decision onReport(OrderState state, RunReport report, long now) {
        if (state == null) {
            return Decision.none();
        }
        return switch (report) {
            case RunReport.NodeDetail detail when detail.nodeId() == null ->
                    incident(state, REPORT_SOURCE + "node_detail", "A node detail report names no node", now, true);
            case RunReport.NodeDetail detail -> Decision.of(List.of(patched(detail)), List.of());
            case RunReport.Batch batch -> throw new IllegalArgumentException(
                    "A batch is decided report by report, on the state each one leaves (RunReport.unpacked)");
            case RunReport.Progress progress -> progress(state, progress, now);
            case RunReport.WaitRequested requested when requested.request() == null
                    || requested.request().nodeId() == null || requested.request().event() == null ->
                    incident(state, REPORT_SOURCE + "wait_requested", "A wait request lacks its node or event", now,
                            true);
            case RunReport.WaitRequested requested -> openWait(state, requested, now);
            case RunReport.Continued continued -> continued.generation() > state.generation()
                    ? Decision.of(List.of(new OrderFact.RunContinued(continued.instanceId(), continued.generation(),
                    continued.previousInstanceId(), now)), List.of())
                    : Decision.none();
            case RunReport.InstanceStatus status -> instanceStatus(state, status, now);
            case RunReport.Compensated c -> Decision.of(List.of(new OrderFact.CompensationLogged(
                    c.released(), c.voided(), c.shipmentsCancelled(), now)), List.of());
            case RunReport.Incident incident -> incident(state, Incident.of(state.orderId(),
                    RUNNER_SOURCE + incident.source(), incident.cause(), now).from(incident.topic(),
                    incident.partition(), incident.offset(), incident.record(), incident.instanceId(), null), now,
                    false);
        };
    }

    private static final String REPORT_SOURCE = "order-processor run report ";

    /**
     * The order is set aside: a record about it ({@code source}) could not be processed. An order that has not ended
     * fails with the cause as its reason: its open approvals are cancelled and their deadlines cleared, and
     * {@code order.failed} is sent; with {@code terminateRun} the runner is told to end the instance and give back
     * what it holds (when the runner raised the incident, it already has). The incident is listed either way.
     */
    public Decision incident(OrderState state, String source, String cause, long now, boolean terminateRun) {
        return incident(state, Incident.of(state.orderId(), source, cause, now), now, terminateRun);
    }

    /**
     * {@link #incident(OrderState, String, String, long, boolean)} for an incident that says where its record came
     * from; the order's state as it stood is kept with it, for a retry.
     */
    public Decision incident(OrderState state, Incident raised, long now, boolean terminateRun) {
        String cause = raised.cause();
        String source = raised.source();
        List<Effect> effects = new ArrayList<>();
        effects.add(new Effect.RecordIncident(raised.from(raised.topic(), raised.partition(), raised.offset(),
                raised.record(), raised.instanceId(), Json.tree(state))));
        if (!state.status().terminal()) {
            for (Wait wait : state.waits()) {
                if (wait.isApproval()) {
                    effects.add(new Effect.CloseApproval(wait.nodeId(), "cancelled", now, null, null));
                }
                effects.add(new Effect.ClearDeadline(wait.deadline(), wait.nodeId()));
            }
            if (terminateRun && state.instanceId() != null) {
                effects.add(new Effect.SendTask(new NodeTask.TerminateRun(state.orderId(), state.instanceId(),
                        "Incident: " + cause)));
            }
            ObjectNode data = Json.object();
            data.set("order", Json.tree(OrderSummary.of(state.order(), state.orderId())));
            data.put("outcome", "failed");
            data.put("reason", "Incident: " + cause);
            effects.add(new Effect.PublishEvent(new OrderEvent("order.failed", state.orderId(), "incident:" + now,
                    now, data, settings.webhookRetries())));
        }
        return Decision.of(List.of(new OrderFact.IncidentRaised(source, cause, now)), effects);
    }

    /** Ordering rule 4: a node detail always applies its patch and log entry. */
    private static OrderFact patched(RunReport.NodeDetail detail) {
        return new OrderFact.NodePatched(detail.nodeId(), detail.patch(), detail.log());
    }

    /** Ordering rule 1: newer generation, or same generation and higher sequence. */
    static boolean fresh(OrderState state, int generation, long seq) {
        return generation > state.generation() || (generation == state.generation() && seq > state.seq());
    }

    private Decision progress(OrderState state, RunReport.Progress progress, long now) {
        if (!fresh(state, progress.generation(), progress.seq())) {
            return Decision.none();
        }
        // The status entry of the timeline reads when the run reached the status, not when its report arrived.
        long at = progress.at() > 0 ? progress.at() : now;
        List<OrderFact> facts = new ArrayList<>(List.of(new OrderFact.ProgressApplied(progress, at)));
        List<Effect> effects = new ArrayList<>();
        boolean becomesFailed = !state.status().terminal() && progress.status() == OrderStatus.FAILED;
        if (becomesFailed && state.rollback() == null && state.rollbackPolls() == 0) {
            String instanceId = progress.instanceId() != null ? progress.instanceId() : state.instanceId();
            facts.add(new OrderFact.RollbackPolled(1));
            effects.add(new Effect.SendTask(new NodeTask.QueryInstance(state.orderId(), instanceId, 1)));
            effects.add(new Effect.SchedulePoll(now + AgentSettings.POLL_INTERVAL_MS, 2));
        }
        return Decision.of(facts, effects);
    }

    private Decision openWait(OrderState state, RunReport.WaitRequested requested, long now) {
        WaitRequest request = requested.request();
        if (state.status().terminal() || requested.generation() < state.generation()
                || state.waitFor(request.event()).isPresent()) {
            return Decision.none();
        }
        BigDecimal amount = request.amount() != null ? request.amount() : total(state.order());
        long deadline = request.since() + settings.scaledTimeout(request.timeoutMs());
        String kind = Wait.APPROVAL.equals(request.kind()) ? Wait.APPROVAL : Wait.EVENT;
        Wait wait = new Wait(request.nodeId(), kind, request.title(), request.event(), request.assignee(), amount,
                deadline, request.since());
        List<Effect> effects = new ArrayList<>();
        if (wait.isApproval()) {
            effects.add(new Effect.OpenApproval(new ApprovalRow(state.orderId(), wait.nodeId(), wait.title(),
                    wait.assignee(), amount, ApprovalRow.PENDING, now, null, null, null,
                    text(state.order(), "title"), text(state.order(), "currency"), deadline)));
        }
        effects.add(new Effect.ScheduleDeadline(deadline, wait.nodeId()));
        return Decision.of(List.of(new OrderFact.WaitOpened(wait, now)), effects);
    }

    static BigDecimal total(JsonNode order) {
        return order != null && order.hasNonNull("total") ? order.get("total").decimalValue() : null;
    }

    private Decision instanceStatus(OrderState state, RunReport.InstanceStatus status, long now) {
        boolean awaiting = state.status() == OrderStatus.FAILED && state.rollback() == null;
        boolean settled = List.of("errored", "terminated", "complete").contains(status.state());
        if (!awaiting || !settled || !status.instanceId().equals(state.instanceId())) {
            return Decision.none();
        }
        return Decision.of(List.of(new OrderFact.RollbackSettled(rollbackOf(state, status), now)), List.of());
    }

    /** An errored instance with any rolled-back node counts as complete when the runtime omits the outcome. */
    static Rollback rollbackOf(OrderState state, RunReport.InstanceStatus status) {
        if (status.rollback() != null) {
            return status.rollback();
        }
        boolean anyRolledBack = state.nodes().values().stream().anyMatch(n -> n.status() == NodeStatus.ROLLED_BACK);
        if ("complete".equals(status.state()) || ("errored".equals(status.state()) && anyRolledBack)) {
            return new Rollback("complete", null);
        }
        return new Rollback("failed", "The run instance is " + status.state() + " without a completed rollback.");
    }

    // ---- timers ---------------------------------------------------------------------------------------------

    /** A due timer: a wait's deadline (escalated or timeout branch) or the next rollback poll. */
    public Decision onDue(OrderState state, Due due, long now) {
        if (state == null) {
            return Decision.none();
        }
        return Due.POLL.equals(due.kind()) ? poll(state, due, now) : deadline(state, due, now);
    }

    private Decision deadline(OrderState state, Due due, long now) {
        Wait wait = state.waitAt(due.nodeId()).filter(w -> w.deadline() == due.dueAt()).orElse(null);
        if (wait == null) {
            return Decision.none();
        }
        ObjectNode payload = Json.object();
        if (wait.isApproval()) {
            // the decision payload's shape, {decision, by, note, outcome}: nobody decided, the timeout "did"
            payload.putNull("decision");
            payload.put("by", "timeout");
            payload.putNull("note");
            payload.put("outcome", "escalated");
            return Decision.of(List.of(new OrderFact.WaitClosed(wait.nodeId(), "escalated", null, payload, now)),
                    List.of(new Effect.CloseApproval(wait.nodeId(), "escalated", now, "timeout", null),
                            resume(state, wait, "escalated", payload)));
        }
        payload.put("event", wait.event());
        payload.put("at", now);
        payload.put("timeout", true);
        return Decision.of(List.of(new OrderFact.WaitClosed(wait.nodeId(), "timeout", null, payload, now)),
                List.of(resume(state, wait, "timeout", payload)));
    }

    private Decision poll(OrderState state, Due due, long now) {
        if (state.status() != OrderStatus.FAILED || state.rollback() != null) {
            return Decision.none();
        }
        if (due.attempt() > AgentSettings.MAX_POLLS) {
            return Decision.of(List.of(new OrderFact.RollbackSettled(new Rollback("failed", NOT_SETTLED), now)),
                    List.of());
        }
        return Decision.of(List.of(new OrderFact.RollbackPolled(due.attempt())),
                List.of(new Effect.SendTask(new NodeTask.QueryInstance(state.orderId(), state.instanceId(),
                                due.attempt())),
                        new Effect.SchedulePoll(now + AgentSettings.POLL_INTERVAL_MS, due.attempt() + 1)));
    }

    private static Effect resume(OrderState state, Wait wait, String branch, JsonNode payload) {
        return new Effect.SendTask(new NodeTask.ResumeNode(state.orderId(), state.instanceId(), wait.nodeId(), branch,
                payload));
    }

    private static String text(JsonNode node, String field) {
        return node != null && node.hasNonNull(field) ? node.get(field).asString() : null;
    }
}
