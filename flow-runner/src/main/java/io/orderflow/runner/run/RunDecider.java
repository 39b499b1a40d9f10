package io.orderflow.runner.run;

import io.orderflow.runner.connectors.Connectors;
import io.orderflow.runner.nodes.Hold;
import io.orderflow.runner.money.Money;
import io.orderflow.runner.nodes.Node;
import io.orderflow.runner.nodes.NodeCatalogue;
import io.orderflow.runner.nodes.NodeContext;
import io.orderflow.runner.nodes.NodeFailure;
import io.orderflow.runner.nodes.NodeOutcome;
import io.orderflow.runner.scope.RunScope;
import io.orderflow.runner.scope.Templates;
import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.flows.EdgeDefinition;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.flows.NodeDefinition;
import io.orderflow.schemas.flows.RetryPolicy;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.NodePatch;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.OrderSummary;
import io.orderflow.schemas.model.Rollback;
import io.orderflow.schemas.model.TimelineEntry;
import io.orderflow.schemas.model.WaitRequest;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Decides what a task or a due timer means for one run: plain Java, no Kafka. Given the stored instance (or none), it
 * steps through the flow graph ({@link FlowGraph}), executing nodes through their connectors, and answers a
 * {@link RunDecision}: the {@link RunFact}s that happened, which {@link RunApplier} applies to the instance, and the
 * reports, events, tasks and timers to send, which the Streams processor commits atomically with the instance. It
 * never changes an instance itself; giving back what a run holds (rollback, releasing holds) is
 * {@link Compensation}'s.
 */
public final class RunDecider {

    private final NodeCatalogue catalogue;
    private final Connectors connectors;
    private final Money money;
    private final Clock clock;
    private final RunSettings settings;
    private final FlowGraph.Cache graphs = new FlowGraph.Cache();
    private final Compensation compensation;

    public RunDecider(NodeCatalogue catalogue, Connectors connectors, Money money, Clock clock, RunSettings settings) {
        this.catalogue = catalogue;
        this.connectors = connectors;
        this.money = money;
        this.clock = clock;
        this.settings = settings;
        this.compensation = new Compensation(catalogue, connectors, (fx, definition, work) -> onCopy(fx, definition, 1,
                context -> {
                    work.accept(context);
                    return null;
                }), this::detail);
    }

    /** The instance's pinned flow version as the decider steps through it, built once per (flow id, version). */
    private FlowGraph graph(RunInstance instance) {
        return graphs.of(instance.flow());
    }

    /** The decider's clock, in epoch milliseconds (timers are due against it). */
    public long now() {
        return clock.millis();
    }

    /**
     * What watches the decider while it decides a task or timer ({@link NodeBudget}): told of each node before it
     * executes or compensates, on the thread doing the work, and asked whether the node already overran its time
     * budget in an earlier attempt at the same task, in which case it fails without running.
     */
    public interface Guard {

        Guard NONE = new Guard() {
            @Override
            public void entering(String step) {
            }

            @Override
            public boolean overran(String step) {
                return false;
            }

            @Override
            public String overrunMessage() {
                return "";
            }
        };

        /** {@code step} is a node id, or {@link #compensating} of one. */
        void entering(String step);

        boolean overran(String step);

        /** The error a node that overran fails with. */
        String overrunMessage();

        static String compensating(String nodeId) {
            return "compensate:" + nodeId;
        }
    }

    /** Decides one task from {@code node-tasks}; {@code current} is the stored instance of the order, if any. */
    public RunDecision decide(RunInstance current, NodeTask task) {
        return decide(current, task, Guard.NONE);
    }

    /** {@link #decide(RunInstance, NodeTask)}, watched by {@code guard}. */
    public RunDecision decide(RunInstance current, NodeTask task, Guard guard) {
        RunDecision.Builder fx = new RunDecision.Builder(current, guard);
        if (task instanceof NodeTask.ReviveRun revive) {
            return revive(revive, fx);
        }
        decide(task, fx);
        return fx.build();
    }

    /** Decides {@code task} on the working instance of {@code fx}; a task that does not apply decides nothing. */
    private void decide(NodeTask task, RunDecision.Builder fx) {
        RunInstance current = fx.state();
        switch (task) {
            case NodeTask.StartRun start -> {
                if (current != null && current.instanceId().equals(start.instanceId())) {
                    return; // a repeated start of the same instance
                }
                fx.fact(new RunFact.RunStarted(initialInstance(start, graphs.of(start.flow()))));
                progress(fx);
                advance(fx);
            }
            case NodeTask.Advance advance -> {
                if (matches(current, advance.instanceId()) && current.state() == RunInstance.State.RUNNING) {
                    advance(fx);
                }
            }
            case NodeTask.ResumeNode resume -> {
                if (matches(current, resume.instanceId()) && current.state() == RunInstance.State.WAITING
                        && resume.nodeId().equals(current.waitingNode())) {
                    resume(resume, fx);
                }
            }
            case NodeTask.TerminateRun terminate -> {
                if (!matches(current, terminate.instanceId())
                        || current.state() == RunInstance.State.TERMINATED) {
                    return;
                }
                if (terminate.reason() != null && terminate.reason().startsWith(INCIDENT_REASON)) {
                    // the order was set aside: keep the instance as it stood, for a retry of the incident
                    fx.fact(new RunFact.SetAside(Json.tree(current)));
                }
                terminate(fx);
            }
            case NodeTask.QueryInstance query -> fx.reports.add(status(current, query));
            // the topology drops the stored instance itself (RunTopology); the run has nothing left to do
            case NodeTask.ForgetRun forget -> {
            }
            case NodeTask.ReviveRun revive -> {
                RunDecision revived = revive(revive, new RunDecision.Builder(current, fx.guard));
                revived.facts().forEach(fx::fact);
                fx.reports.addAll(revived.reports().stream().flatMap(r -> r.unpacked().stream()).toList());
                fx.events.addAll(revived.events());
                fx.tasks.addAll(revived.tasks());
                fx.timers.addAll(revived.timers());
            }
            case NodeTask.MigrateRun migrate -> {
                if (!matches(current, migrate.instanceId()) || sameVersion(current.flow(), migrate.flow())) {
                    return; // ended, or a repeated migration
                }
                if (current.state() != RunInstance.State.WAITING
                        || !migrate.mapping().containsKey(current.waitingNode())) {
                    incident(fx, migrate.orderId(), "task MigrateRun", "The run is not waiting at a node "
                            + "the migration to version " + migrate.flow().version() + " keeps", null);
                    return;
                }
                FlowGraph graph = graphs.of(migrate.flow());
                fx.fact(new RunFact.RunMigrated(migrate.flow(), migrate.mapping(),
                        List.copyOf(graph.nodes().keySet()), graph.edges().stream().map(EdgeDefinition::id).toList()));
                progress(fx);
            }
        }
    }

    private static boolean sameVersion(FlowVersion a, FlowVersion b) {
        return a.flowId().equals(b.flowId()) && a.version() == b.version();
    }

    /** The instance a start task begins: at the flow's first node, every node and edge pending. */
    static RunInstance initialInstance(NodeTask.StartRun start, FlowGraph graph) {
        Map<String, NodeStatus> nodes = new LinkedHashMap<>();
        graph.nodes().keySet().forEach(id -> nodes.put(id, NodeStatus.PENDING));
        Map<String, EdgeState> edges = new LinkedHashMap<>();
        graph.edges().forEach(e -> edges.put(e.id(), EdgeState.PENDING));
        return new RunInstance(start.orderId(), start.instanceId(), 1, 0, start.flow(),
                start.order() instanceof ObjectNode o ? o.deepCopy() : Json.object(),
                start.vars() instanceof ObjectNode v ? v.deepCopy() : Json.object(), Json.object(),
                RunInstance.State.RUNNING, OrderStatus.RUNNING, null, nodes, edges, List.of(graph.start().id()), null,
                0, Map.of(), Map.of(), List.of(), List.of(), null, null, null, start.documentText());
    }

    /** How the order's agent words the reason of a run it ends because the order was set aside. */
    public static final String INCIDENT_REASON = "Incident: ";

    /**
     * An operator retried the order's incident: the instance is put back as it stood when it was set aside
     * ({@link RunInstance#setAside}) and the set-aside task is decided again on it, or, for a set-aside timer, the
     * timer is set again and fires. What the run held was given back at the incident and stays given back. With no
     * instance to put back and no task to decide again, the order cannot resume, which is an incident again.
     */
    private RunDecision revive(NodeTask.ReviveRun revive, RunDecision.Builder fx) {
        RunInstance current = fx.state();
        RunInstance stood = null;
        if (current != null && current.setAside() != null && current.instanceId().equals(revive.instanceId())) {
            stood = Json.MAPPER.treeToValue(current.setAside(), RunInstance.class);
            fx.fact(new RunFact.Revived(stood));
        } else if (revive.task() == null) {
            return incident(current, revive.orderId(), "task ReviveRun",
                    "There is no set-aside run instance of " + revive.instanceId() + " to put back", null);
        }
        int before = fx.factCount();
        if (revive.task() != null) {
            decide(Json.MAPPER.treeToValue(revive.task(), NodeTask.class), fx);
        } else {
            if (fx.state().timer() != null) {
                fx.timers.add(fx.state().timer());
            }
            advance(fx);
            return fx.build();
        }
        if (stood != null && fx.factCount() == before && stood.timer() != null) {
            // the task decided nothing: the instance put back keeps its timer, which is set again
            fx.timers.add(fx.state().timer());
        }
        return fx.build();
    }

    /** Decides a due timer; stale timers (the instance moved on) decide nothing. */
    public RunDecision fire(RunInstance current, RunInstance.Timer timer) {
        return fire(current, timer, Guard.NONE);
    }

    /** {@link #fire(RunInstance, RunInstance.Timer)}, watched by {@code guard}. */
    public RunDecision fire(RunInstance current, RunInstance.Timer timer, Guard guard) {
        if (!matches(current, timer.instanceId()) || !timer.equals(current.timer())) {
            return RunDecision.none();
        }
        RunDecision.Builder fx = new RunDecision.Builder(current, guard);
        fx.fact(new RunFact.TimerFired(timer));
        if (!timer.kind().equals("retry")) {
            NodeDefinition definition = graph(fx.state()).node(timer.nodeId());
            guard.entering(definition.id());
            NodeOutcome outcome = onCopy(fx, definition, 1,
                    context -> catalogue.get(definition.type()).execute(context));
            if (outcome instanceof NodeOutcome.Sleep sleep) {
                finished(definition, sleep.done(), null, fx);
            }
        }
        advance(fx);
        return fx.build();
    }

    /**
     * What setting the order aside means after its task or timer ({@code source}) could not be handled: the
     * instance, if any, is terminated so that later tasks for it do nothing, what it holds is given back through the
     * connectors (as a cancel does), and an incident report tells the order's agent why. {@code stood} is the
     * instance as it stood before, kept for a retry ({@code null}: keep what the instance kept).
     */
    public RunDecision incident(RunInstance current, String orderId, String source, String cause, JsonNode stood) {
        RunDecision.Builder fx = new RunDecision.Builder(current, Guard.NONE);
        incident(fx, orderId, source, cause, stood);
        return fx.build();
    }

    /** {@link #incident(RunInstance, String, String, String, JsonNode)} on the working instance of {@code fx}. */
    private void incident(RunDecision.Builder fx, String orderId, String source, String cause, JsonNode stood) {
        RunInstance current = fx.state();
        int reported = fx.reports.size();
        fx.reports.add(new RunReport.Incident(orderId, current == null ? null : current.instanceId(), source, cause));
        if (current == null) {
            return;
        }
        try {
            Compensation.Released released = compensation.releaseHolds(current, "incident");
            holdsClosed("incident", released.holds(), fx);
            fx.reports.add(new RunReport.Compensated(orderId, current.instanceId(), released.stock(),
                    released.authorizations(), released.shipments()));
        } catch (RuntimeException e) {
            cause = cause + "; giving back what the run held failed too: " + e.getMessage();
            fx.reports.set(reported, new RunReport.Incident(orderId, current.instanceId(), source, cause));
        }
        fx.fact(new RunFact.IncidentRaised(cause));
        if (stood != null) {
            fx.fact(new RunFact.SetAside(stood));
        }
    }

    private static boolean matches(RunInstance current, String instanceId) {
        return current != null && current.instanceId().equals(instanceId) && !current.ended();
    }

    /** Executes ready nodes until the run waits, sleeps, ends, or the per-task budget is spent. */
    private void advance(RunDecision.Builder fx) {
        int executed = 0;
        while (fx.state().state() == RunInstance.State.RUNNING && !fx.state().ready().isEmpty()) {
            RunInstance instance = fx.state();
            if (executed >= settings.stepsPerTask()) {
                fx.tasks.add(new NodeTask.Advance(instance.orderId(), instance.instanceId()));
                return;
            }
            if (instance.steps() >= settings.maxSteps()) {
                continueAsNew(fx);
                fx.tasks.add(new NodeTask.Advance(instance.orderId(), fx.state().instanceId()));
                return;
            }
            execute(instance.ready().getFirst(), fx);
            executed++;
        }
    }

    private void execute(String nodeId, RunDecision.Builder fx) {
        NodeDefinition definition = graph(fx.state()).node(nodeId);
        Node node = catalogue.get(definition.type());
        fx.fact(new RunFact.NodeEntered(nodeId));
        int attempt = fx.state().attempts().get(nodeId);
        long startedAt = clock.millis();
        NodeOutcome outcome;
        try {
            fx.guard.entering(nodeId);
            if (fx.guard.overran(nodeId)) {
                throw new NodeFailure(fx.guard.overrunMessage());
            }
            outcome = onCopy(fx, definition, attempt, node::execute);
        } catch (RuntimeException e) {
            threw(definition, attempt, e, startedAt, fx);
            return;
        }
        switch (outcome) {
            case NodeOutcome.Done done -> finished(definition, done, startedAt, fx);
            case NodeOutcome.Wait wait -> waiting(definition, wait, fx);
            case NodeOutcome.Sleep sleep -> {
                fx.fact(new RunFact.NodeSleeping(nodeId, timer(fx.state(), "sleep", nodeId,
                        clock.millis() + sleep.millis(), fx)));
                detail(fx.state(), definition, new NodePatch(NodeStatus.RUNNING, null, null,
                        "Sleeping " + sleep.millis() + " ms", null, null, null), null, fx);
                progress(fx);
            }
            case NodeOutcome.End end -> ended(definition, end, fx);
        }
    }

    /**
     * Runs {@code work} on a copy of what the node may change ({@link NodeCopy}), and decides what it wrote, if
     * anything, whether the work finished or threw.
     */
    private <T> T onCopy(RunDecision.Builder fx, NodeDefinition definition, int attempt,
                         java.util.function.Function<NodeContext, T> work) {
        NodeCopy copy = new NodeCopy(fx.state());
        try {
            return work.apply(new NodeContext(copy, definition, attempt, connectors, money, settings.timeScale(),
                    clock.millis()));
        } finally {
            copy.wrote(definition.id()).ifPresent(fx::fact);
        }
    }

    private void finished(NodeDefinition definition, NodeOutcome.Done done, Long startedAt, RunDecision.Builder fx) {
        String nodeId = definition.id();
        Node node = catalogue.get(definition.type());
        long now = clock.millis();
        JsonNode output = done.output() == null ? Json.object() : done.output();
        RunFact.NodeSucceeded succeeded = follow(definition, done.branch(), output, graph(fx.state()));
        fx.fact(succeeded);
        RunInstance instance = fx.state();
        boolean timed = node.timed();
        detail(instance, definition, new NodePatch(NodeStatus.SUCCEEDED, timed ? startedAt : null,
                timed ? now : null, done.summary(), output, null,
                done.branch() == null ? null : List.of(done.branch())), done.summary(), fx);
        String event = node.eventOn(done.branch(), output);
        if (event != null) {
            ObjectNode data = Json.object();
            data.set("order", summary(instance));
            ObjectNode nodeData = data.putObject("node");
            nodeData.put("id", nodeId);
            nodeData.put("type", definition.type());
            nodeData.set("output", output);
            event(instance, event, nodeId, data, fx);
        }
        if (succeeded.next().isEmpty()) {
            fail(definition, "No edge leaves " + nodeId + " for branch " + done.branch(), fx);
            return;
        }
        progress(fx);
    }

    /**
     * {@code definition} succeeded on {@code branch}: the edges leaving it on that branch are taken (an edge without a
     * branch when none names it), the others not, and the nodes taken edges lead to are next.
     */
    static RunFact.NodeSucceeded follow(NodeDefinition definition, String branch, JsonNode output, FlowGraph graph) {
        List<EdgeDefinition> outgoing = graph.outgoing(definition.id());
        boolean branchMatched = outgoing.stream().anyMatch(e -> e.branch() != null && e.branch().equals(branch));
        Map<String, EdgeState> edges = new LinkedHashMap<>();
        List<String> next = new java.util.ArrayList<>();
        for (EdgeDefinition edge : outgoing) {
            boolean taken = edge.branch() == null ? !branchMatched : edge.branch().equals(branch);
            edges.put(edge.id(), taken ? EdgeState.ACTIVE : EdgeState.INACTIVE);
            if (taken) {
                next.add(edge.to());
            }
        }
        return new RunFact.NodeSucceeded(definition.id(), output, edges, next);
    }

    private void waiting(NodeDefinition definition, NodeOutcome.Wait wait, RunDecision.Builder fx) {
        long now = clock.millis();
        fx.fact(new RunFact.NodeWaiting(definition.id()));
        RunInstance instance = fx.state();
        fx.reports.add(new RunReport.WaitRequested(instance.orderId(), instance.instanceId(), instance.generation(),
                new WaitRequest(definition.id(), wait.kind(), wait.title(), wait.event(), wait.assignee(),
                        wait.amount(), wait.timeout().toMillis(), now)));
        detail(instance, definition, new NodePatch(NodeStatus.WAITING, null, null, wait.summary(), null, null, null),
                null, fx);
        progress(fx);
    }

    private void resume(NodeTask.ResumeNode resume, RunDecision.Builder fx) {
        NodeDefinition definition = graph(fx.state()).node(resume.nodeId());
        Node node = catalogue.get(definition.type());
        fx.fact(new RunFact.NodeResumed(resume.nodeId(), resume.branch()));
        NodeOutcome.Done done = onCopy(fx, definition, 1,
                context -> node.resume(context, resume.branch(), resume.payload()));
        finished(definition, done, null, fx);
        advance(fx);
    }

    private void ended(NodeDefinition definition, NodeOutcome.End end, RunDecision.Builder fx) {
        // A completed order keeps what it holds (a purchase request's reserved stock is its allocation); any other
        // end gives it back.
        Compensation.Released released = "completed".equals(end.outcome())
                ? Compensation.keepHolds(fx.state()) : compensation.releaseHolds(fx.state(), definition.id());
        ObjectNode output = Json.object();
        output.put("outcome", end.outcome());
        if (end.reason() != null) {
            output.put("reason", end.reason());
        }
        fx.fact(new RunFact.RunEnded(definition.id(), OrderStatus.fromWire(end.outcome()), end.reason(), output));
        holdsClosed(definition.id(), released.holds(), fx);
        RunInstance instance = fx.state();
        String summary = "Outcome: " + end.outcome() + (end.reason() == null ? "" : " (" + end.reason() + ")")
                + (released.any() ? "; " + released.describe() : "");
        detail(instance, definition, new NodePatch(NodeStatus.SUCCEEDED, null, null, summary, output, null, null),
                summary, fx);
        ObjectNode data = Json.object();
        data.set("order", summary(instance));
        data.put("outcome", end.outcome());
        data.put("reason", end.reason());
        event(instance, "order." + end.outcome(), definition.id(), data, fx);
        progress(fx);
    }

    /** The holds after giving back or keeping what the run held ({@code step}), when that changed them. */
    private static void holdsClosed(String step, List<Hold> holds, RunDecision.Builder fx) {
        if (!holds.equals(fx.state().holds())) {
            fx.fact(new RunFact.NodeWrote(step, null, null, holds));
        }
    }

    private void threw(NodeDefinition definition, int attempt, RuntimeException e, long startedAt,
                       RunDecision.Builder fx) {
        RetryPolicy policy = definition.retry() == null ? RetryPolicy.NONE : definition.retry();
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        if (!(e instanceof NodeFailure) && attempt < policy.maxAttempts()) {
            long backoff = policy.backoffAfter(attempt);
            fx.fact(new RunFact.NodeRetrying(definition.id(), timer(fx.state(), "retry", definition.id(),
                    clock.millis() + backoff, fx)));
            String summary = "Attempt " + attempt + " of " + policy.maxAttempts() + " failed; retrying in "
                    + backoff + " ms";
            detail(fx.state(), definition, new NodePatch(NodeStatus.RUNNING, startedAt, null, summary, null, message,
                    null), summary + ": " + message, fx);
            return;
        }
        fx.fact(new RunFact.NodeFailed(definition.id()));
        detail(fx.state(), definition, new NodePatch(NodeStatus.FAILED, startedAt, clock.millis(),
                "Failed after " + attempt + " attempt(s)", null, message, null), "Failed: " + message, fx);
        fail(definition, message, fx);
    }

    /** The run failed at {@code definition}: compensate completed nodes in reverse and end the instance errored. */
    private void fail(NodeDefinition definition, String error, RunDecision.Builder fx) {
        String reason = title(fx.state(), definition) + " failed: " + error;
        Rollback rollback = compensation.rollBack(graph(fx.state()), fx);
        fx.fact(new RunFact.RunFailed(reason, rollback));
        RunInstance instance = fx.state();
        ObjectNode data = Json.object();
        data.set("order", summary(instance));
        data.put("outcome", "failed");
        data.put("reason", reason);
        ObjectNode nodeData = data.putObject("node");
        nodeData.put("id", definition.id());
        nodeData.put("type", definition.type());
        nodeData.put("error", error);
        event(instance, "order.failed", definition.id(), data, fx);
        progress(fx);
    }

    private void terminate(RunDecision.Builder fx) {
        RunInstance instance = fx.state();
        Compensation.Released released = compensation.releaseHolds(instance, "cancel");
        holdsClosed("cancel", released.holds(), fx);
        fx.fact(new RunFact.RunTerminated());
        fx.reports.add(new RunReport.Compensated(instance.orderId(), instance.instanceId(), released.stock(),
                released.authorizations(), released.shipments()));
    }

    private RunReport.InstanceStatus status(RunInstance current, NodeTask.QueryInstance query) {
        if (current == null) {
            return new RunReport.InstanceStatus(query.orderId(), query.instanceId(), 0, "terminated", null);
        }
        if (!current.instanceId().equals(query.instanceId())) {
            // an earlier generation: it handed over to the current instance
            return new RunReport.InstanceStatus(query.orderId(), query.instanceId(), current.generation(),
                    "complete", null);
        }
        Rollback rollback = switch (current.state()) {
            case ERRORED -> current.rollback();
            // an End node with outcome failed: the order failed on purpose and nothing was rolled back
            case COMPLETE -> current.status() == OrderStatus.FAILED
                    ? new Rollback("failed", "The run ended at a failed End node; nothing was rolled back") : null;
            default -> null;
        };
        return new RunReport.InstanceStatus(current.orderId(), current.instanceId(), current.generation(),
                current.queryState(), rollback);
    }

    private void continueAsNew(RunDecision.Builder fx) {
        RunInstance instance = fx.state();
        String previous = instance.instanceId();
        int generation = instance.generation() + 1;
        fx.fact(new RunFact.RunContinued(instance.orderId() + "." + generation, generation));
        fx.reports.add(new RunReport.Continued(instance.orderId(), fx.state().instanceId(), generation, previous));
        progress(fx);
    }

    /** A timer of the instance, scheduled with the decision. */
    private static RunInstance.Timer timer(RunInstance instance, String kind, String nodeId, long due,
                                           RunDecision.Builder fx) {
        RunInstance.Timer timer = new RunInstance.Timer(instance.orderId(), instance.instanceId(), kind, nodeId, due);
        fx.timers.add(timer);
        return timer;
    }

    /**
     * Reports the instance's plan, order and vars as a sequenced snapshot. A snapshot carries all that an earlier one
     * of the same instance did, so when this task already produced one with the same status, that one is replaced
     * rather than followed: a task's record then carries one snapshot per status it passes through instead of one
     * per node. The replacement keeps the first one's sequence number, its time ({@code at}, when the
     * run reached the status) and its place among the reports, so the order's timeline reads the status where it
     * happened ("Order running" before the work it started), not after everything the task went on to do. A change of
     * status is still a report of its own.
     */
    private void progress(RunDecision.Builder fx) {
        RunInstance instance = fx.state();
        OrderStatus status = switch (instance.state()) {
            case WAITING -> OrderStatus.WAITING;
            case COMPLETE, ERRORED -> instance.status();
            default -> OrderStatus.RUNNING;
        };
        RunReport.Progress previous = fx.lastProgress();
        int place = fx.reports.size();
        long at = clock.millis();
        if (previous != null && previous.instanceId().equals(instance.instanceId()) && previous.status() == status) {
            place = fx.reports.indexOf(previous);
            fx.reports.remove(place);
            at = previous.at();
        } else {
            fx.fact(new RunFact.ProgressSent(instance.seq() + 1));
            instance = fx.state();
        }
        // A task reports progress after every node: what did not change since the last report is shared, not copied.
        boolean after = previous != null;
        fx.reports.add(place, new RunReport.Progress(instance.orderId(), instance.instanceId(), instance.generation(),
                instance.seq(), status, instance.reason(), snapshot(instance.nodes(), after ? previous.nodes() : null),
                snapshot(instance.edges(), after ? previous.edges() : null),
                snapshot(instance.order(), after ? previous.order() : null),
                snapshot(instance.vars(), after ? previous.vars() : null), at));
    }

    private static <V> Map<String, V> snapshot(Map<String, V> now, Map<String, V> reported) {
        return now.equals(reported) ? reported : new LinkedHashMap<>(now);
    }

    private static JsonNode snapshot(ObjectNode now, JsonNode reported) {
        return now.equals(reported) ? reported : now.deepCopy();
    }

    void detail(RunInstance instance, NodeDefinition definition, NodePatch patch, String logMessage,
                RunDecision.Builder fx) {
        TimelineEntry log = logMessage == null ? null : new TimelineEntry(clock.millis(), "node",
                title(instance, definition) + ": " + logMessage, definition.id(), null, null);
        fx.reports.add(new RunReport.NodeDetail(instance.orderId(), instance.instanceId(), definition.id(), patch,
                log));
    }

    private void event(RunInstance instance, String name, String nodeId, ObjectNode data, RunDecision.Builder fx) {
        String step = instance.instanceId() + ":" + nodeId + ":" + instance.steps();
        fx.events.add(new OrderEvent(name, instance.orderId(), step, clock.millis(), data, null));
    }

    static String title(RunInstance instance, NodeDefinition definition) {
        String title = definition.title() == null ? definition.id() : definition.title();
        return Templates.render(title, () -> RunScope.of(instance.order(), instance.vars(), instance.outputs()));
    }

    /** The order summary of outbound events (one shape, {@link OrderSummary}). */
    static JsonNode summary(RunInstance instance) {
        return Json.tree(OrderSummary.of(instance.order(), instance.orderId()));
    }
}
