package io.orderflow.runner.run;

import io.orderflow.runner.connectors.Connectors;
import io.orderflow.runner.money.Money;
import io.orderflow.runner.nodes.Hold;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Executes run instances: plain Java, no Kafka. Given the stored instance (or none) and a task or a due timer, it
 * mutates the instance and returns the {@link Effects} to write, which the Streams processor commits atomically. It
 * dispatches tasks and timers, steps through the flow graph ({@link FlowGraph}) and reports; giving back what a run
 * holds (rollback, releasing holds) is {@link Compensation}'s.
 */
public final class RunEngine {

    private final NodeCatalogue catalogue;
    private final Connectors connectors;
    private final Money money;
    private final Clock clock;
    private final RunSettings settings;
    private final FlowGraph.Cache graphs = new FlowGraph.Cache();
    private final Compensation compensation;

    public RunEngine(NodeCatalogue catalogue, Connectors connectors, Money money, Clock clock, RunSettings settings) {
        this.catalogue = catalogue;
        this.connectors = connectors;
        this.money = money;
        this.clock = clock;
        this.settings = settings;
        this.compensation = new Compensation(catalogue, connectors,
                (instance, definition) -> context(instance, definition, 1), this::detail);
    }

    /** The instance's pinned flow version as the engine steps through it, built once per (flow id, version). */
    private FlowGraph graph(RunInstance instance) {
        return graphs.of(instance.flow);
    }

    /** The engine's clock, in epoch milliseconds (timers are due against it). */
    public long now() {
        return clock.millis();
    }

    /**
     * What watches the engine while it handles a task or timer ({@link NodeBudget}): told of each node before it
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

    /** Handles one task from {@code node-tasks}; {@code current} is the stored instance of the order, if any. */
    public Effects handle(RunInstance current, NodeTask task) {
        return handle(current, task, Guard.NONE);
    }

    /** {@link #handle(RunInstance, NodeTask)}, watched by {@code guard}. */
    public Effects handle(RunInstance current, NodeTask task, Guard guard) {
        Effects.Builder fx = new Effects.Builder(guard);
        return switch (task) {
            case NodeTask.StartRun start -> {
                if (current != null && current.instanceId.equals(start.instanceId())) {
                    yield Effects.none(); // a repeated start of the same instance
                }
                RunInstance instance = start(start);
                progress(instance, fx);
                advance(instance, fx);
                yield fx.build(instance);
            }
            case NodeTask.Advance advance -> {
                if (!matches(current, advance.instanceId()) || current.state != RunInstance.State.RUNNING) {
                    yield Effects.none();
                }
                advance(current, fx);
                yield fx.build(current);
            }
            case NodeTask.ResumeNode resume -> {
                if (!matches(current, resume.instanceId()) || current.state != RunInstance.State.WAITING
                        || !resume.nodeId().equals(current.waitingNode)) {
                    yield Effects.none();
                }
                resume(current, resume, fx);
                yield fx.build(current);
            }
            case NodeTask.TerminateRun terminate -> {
                if (!matches(current, terminate.instanceId()) || current.state == RunInstance.State.TERMINATED) {
                    yield Effects.none();
                }
                if (terminate.reason() != null && terminate.reason().startsWith(INCIDENT_REASON)) {
                    // the order was set aside: keep the instance as it stood, for a retry of the incident
                    current.setAside = Json.tree(current);
                }
                terminate(current, fx);
                yield fx.build(current);
            }
            case NodeTask.QueryInstance query -> {
                fx.reports.add(status(current, query));
                yield fx.build(null);
            }
            // the topology drops the stored instance itself (RunTopology); the run has nothing left to do
            case NodeTask.ForgetRun forget -> Effects.none();
            case NodeTask.ReviveRun revive -> revive(current, revive, guard);
            case NodeTask.MigrateRun migrate -> {
                if (!matches(current, migrate.instanceId()) || sameVersion(current.flow, migrate.flow())) {
                    yield Effects.none(); // ended, or a repeated migration
                }
                if (current.state != RunInstance.State.WAITING
                        || !migrate.mapping().containsKey(current.waitingNode)) {
                    yield incident(current, migrate.orderId(), "task MigrateRun", "The run is not waiting at a node "
                            + "the migration to version " + migrate.flow().version() + " keeps");
                }
                migrate(current, migrate);
                progress(current, fx);
                yield fx.build(current);
            }
        };
    }

    private static boolean sameVersion(FlowVersion a, FlowVersion b) {
        return a.flowId().equals(b.flowId()) && a.version() == b.version();
    }

    /**
     * The waiting instance goes on with the new version: every node, edge, output, attempt count, completed node and
     * hold is renamed through the mapping (a node the mapping does not keep is forgotten: it will not run, and a later
     * rollback does not compensate it, though what it holds is still given back); the new version's nodes that no old
     * node became are pending; an edge keeps its state when the new version has an edge with its id.
     */
    private void migrate(RunInstance instance, NodeTask.MigrateRun migrate) {
        Map<String, String> to = migrate.mapping();
        FlowGraph graph = graphs.of(migrate.flow());
        Map<String, String> becameFrom = new HashMap<>();
        to.forEach((from, target) -> becameFrom.put(target, from));
        Map<String, NodeStatus> nodes = new LinkedHashMap<>();
        graph.nodes().keySet().forEach(id -> nodes.put(id, becameFrom.containsKey(id)
                ? instance.nodes.getOrDefault(becameFrom.get(id), NodeStatus.PENDING) : NodeStatus.PENDING));
        Map<String, EdgeState> edges = new LinkedHashMap<>();
        graph.edges().forEach(e -> edges.put(e.id(), instance.edges.getOrDefault(e.id(), EdgeState.PENDING)));
        ObjectNode outputs = Json.object();
        to.forEach((from, target) -> {
            if (instance.outputs != null && instance.outputs.has(from)) {
                outputs.set(target, instance.outputs.get(from));
            }
        });
        instance.nodes = nodes;
        instance.edges = edges;
        instance.outputs = outputs;
        instance.ready = new ArrayList<>(instance.ready.stream().filter(to::containsKey).map(to::get).toList());
        instance.completed = new ArrayList<>(instance.completed.stream().filter(to::containsKey).map(to::get)
                .toList());
        instance.attempts = renamed(instance.attempts, to);
        instance.runs = renamed(instance.runs, to);
        instance.holds = new ArrayList<>(instance.holds.stream().map(h -> to.containsKey(h.nodeId())
                ? new Hold(h.kind(), h.id(), to.get(h.nodeId()), h.open()) : h).toList());
        instance.waitingNode = to.get(instance.waitingNode);
        instance.flow = migrate.flow();
    }

    private static <V> Map<String, V> renamed(Map<String, V> byNode, Map<String, String> to) {
        Map<String, V> renamed = new LinkedHashMap<>();
        byNode.forEach((id, value) -> {
            if (to.containsKey(id)) {
                renamed.put(to.get(id), value);
            }
        });
        return renamed;
    }

    /** How the order's agent words the reason of a run it ends because the order was set aside. */
    public static final String INCIDENT_REASON = "Incident: ";

    /**
     * An operator retried the order's incident: the instance is put back as it stood when it was set aside
     * ({@link RunInstance#setAside}) and the set-aside task is handled again on it, or, for a set-aside timer, the
     * timer is set again and fires. What the run held was given back at the incident and stays given back. With no
     * instance to put back and no task to handle again, the order cannot resume, which is an incident again.
     */
    private Effects revive(RunInstance current, NodeTask.ReviveRun revive, Guard guard) {
        RunInstance instance = current;
        if (current != null && current.setAside != null && current.instanceId.equals(revive.instanceId())) {
            instance = Json.MAPPER.treeToValue(current.setAside, RunInstance.class);
            instance.holds = current.holds;
            instance.setAside = null;
        } else if (revive.task() == null) {
            return incident(current, revive.orderId(), "task ReviveRun",
                    "There is no set-aside run instance of " + revive.instanceId() + " to put back");
        }
        Effects handled;
        if (revive.task() != null) {
            handled = handle(instance, Json.MAPPER.treeToValue(revive.task(), NodeTask.class), guard);
        } else {
            Effects.Builder fx = new Effects.Builder(guard);
            if (instance.timer != null) {
                fx.timers.add(instance.timer);
            }
            advance(instance, fx);
            handled = fx.build(instance);
        }
        if (handled.instance() == null && instance != current) {
            List<RunInstance.Timer> timers = instance.timer == null ? handled.timers() : java.util.stream.Stream
                    .concat(handled.timers().stream(), java.util.stream.Stream.of(instance.timer)).toList();
            return new Effects(instance, handled.reports(), handled.events(), handled.tasks(), timers);
        }
        return handled;
    }

    /** Handles a due timer; stale timers (the instance moved on) do nothing. */
    public Effects fire(RunInstance current, RunInstance.Timer timer) {
        return fire(current, timer, Guard.NONE);
    }

    /** {@link #fire(RunInstance, RunInstance.Timer)}, watched by {@code guard}. */
    public Effects fire(RunInstance current, RunInstance.Timer timer, Guard guard) {
        if (!matches(current, timer.instanceId()) || !timer.equals(current.timer)) {
            return Effects.none();
        }
        Effects.Builder fx = new Effects.Builder(guard);
        current.timer = null;
        current.state = RunInstance.State.RUNNING;
        if (timer.kind().equals("retry")) {
            current.ready.addFirst(timer.nodeId());
        } else {
            NodeDefinition definition = graph(current).node(timer.nodeId());
            guard.entering(definition.id());
            NodeOutcome outcome = catalogue.get(definition.type()).execute(context(current, definition, 1));
            if (outcome instanceof NodeOutcome.Sleep sleep) {
                finished(current, definition, sleep.done(), null, fx);
            }
        }
        advance(current, fx);
        return fx.build(current);
    }

    /**
     * The effects of setting the order aside after its task or timer ({@code source}) could not be handled: the
     * instance, if any, is stored terminated so that later tasks for it do nothing, what it holds is given back
     * through the connectors (as a cancel does), and an incident report tells the order's agent why.
     */
    public Effects incident(RunInstance current, String orderId, String source, String cause) {
        Effects.Builder fx = new Effects.Builder(Guard.NONE);
        fx.reports.add(new RunReport.Incident(orderId, current == null ? null : current.instanceId, source, cause));
        if (current == null) {
            return fx.build(null);
        }
        try {
            Compensation.Released released = compensation.releaseHolds(current, "incident");
            fx.reports.add(new RunReport.Compensated(orderId, current.instanceId, released.stock(),
                    released.authorizations(), released.shipments()));
        } catch (RuntimeException e) {
            cause = cause + "; giving back what the run held failed too: " + e.getMessage();
            fx.reports.set(0, new RunReport.Incident(orderId, current.instanceId, source, cause));
        }
        current.state = RunInstance.State.TERMINATED;
        current.status = OrderStatus.FAILED;
        current.reason = cause;
        current.timer = null;
        current.ready.clear();
        current.waitingNode = null;
        return fx.build(current);
    }

    private static boolean matches(RunInstance current, String instanceId) {
        return current != null && current.instanceId.equals(instanceId) && !current.ended();
    }

    private RunInstance start(NodeTask.StartRun start) {
        RunInstance instance = new RunInstance();
        instance.orderId = start.orderId();
        instance.instanceId = start.instanceId();
        instance.generation = 1;
        instance.flow = start.flow();
        instance.order = start.order() instanceof ObjectNode o ? o.deepCopy() : Json.object();
        instance.documentText = start.documentText();
        instance.vars = start.vars() instanceof ObjectNode v ? v.deepCopy() : Json.object();
        instance.outputs = Json.object();
        FlowGraph graph = graphs.of(start.flow());
        graph.nodes().keySet().forEach(id -> instance.nodes.put(id, NodeStatus.PENDING));
        graph.edges().forEach(e -> instance.edges.put(e.id(), EdgeState.PENDING));
        instance.ready.add(graph.start().id());
        return instance;
    }

    /** Executes ready nodes until the run waits, sleeps, ends, or the per-task budget is spent. */
    private void advance(RunInstance instance, Effects.Builder fx) {
        int executed = 0;
        while (instance.state == RunInstance.State.RUNNING && !instance.ready.isEmpty()) {
            if (executed >= settings.stepsPerTask()) {
                fx.tasks.add(new NodeTask.Advance(instance.orderId, instance.instanceId));
                return;
            }
            if (instance.steps >= settings.maxSteps()) {
                continueAsNew(instance, fx);
                fx.tasks.add(new NodeTask.Advance(instance.orderId, instance.instanceId));
                return;
            }
            execute(instance, instance.ready.removeFirst(), fx);
            executed++;
        }
    }

    private void execute(RunInstance instance, String nodeId, Effects.Builder fx) {
        NodeDefinition definition = graph(instance).node(nodeId);
        Node node = catalogue.get(definition.type());
        int attempt = instance.attempts.merge(nodeId, 1, Integer::sum);
        if (attempt == 1) {
            // a retry repeats the same run; only entering the node anew (e.g. a loop back to it) starts the next one
            instance.runs.merge(nodeId, 1, Integer::sum);
        }
        instance.steps++;
        long startedAt = clock.millis();
        instance.nodes.put(nodeId, NodeStatus.RUNNING);
        NodeOutcome outcome;
        try {
            fx.guard.entering(nodeId);
            if (fx.guard.overran(nodeId)) {
                throw new NodeFailure(fx.guard.overrunMessage());
            }
            outcome = node.execute(context(instance, definition, attempt));
        } catch (RuntimeException e) {
            threw(instance, definition, attempt, e, startedAt, fx);
            return;
        }
        switch (outcome) {
            case NodeOutcome.Done done -> finished(instance, definition, done, startedAt, fx);
            case NodeOutcome.Wait wait -> waiting(instance, definition, wait, fx);
            case NodeOutcome.Sleep sleep -> {
                instance.state = RunInstance.State.SLEEPING;
                schedule(instance, "sleep", nodeId, clock.millis() + sleep.millis(), fx);
                detail(instance, definition, new NodePatch(NodeStatus.RUNNING, null, null,
                        "Sleeping " + sleep.millis() + " ms", null, null, null), null, fx);
                progress(instance, fx);
            }
            case NodeOutcome.End end -> ended(instance, definition, end, fx);
        }
    }

    private NodeContext context(RunInstance instance, NodeDefinition definition, int attempt) {
        return new NodeContext(instance, definition, attempt, connectors, money, settings.timeScale(), clock.millis());
    }

    private void finished(RunInstance instance, NodeDefinition definition, NodeOutcome.Done done, Long startedAt,
                          Effects.Builder fx) {
        String nodeId = definition.id();
        Node node = catalogue.get(definition.type());
        long now = clock.millis();
        instance.nodes.put(nodeId, NodeStatus.SUCCEEDED);
        JsonNode output = done.output() == null ? Json.object() : done.output();
        instance.outputs.set(nodeId, output);
        instance.attempts.remove(nodeId);
        instance.completed.add(nodeId);
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
        if (!follow(instance, definition, done.branch())) {
            fail(instance, definition, "No edge leaves " + nodeId + " for branch " + done.branch(), fx);
            return;
        }
        progress(instance, fx);
    }

    /** Activates the edges taken from {@code definition} on {@code branch}; false when none leaves it. */
    private boolean follow(RunInstance instance, NodeDefinition definition, String branch) {
        List<EdgeDefinition> outgoing = graph(instance).outgoing(definition.id());
        boolean branchMatched = outgoing.stream().anyMatch(e -> e.branch() != null && e.branch().equals(branch));
        boolean any = false;
        for (EdgeDefinition edge : outgoing) {
            boolean taken = edge.branch() == null ? !branchMatched : edge.branch().equals(branch);
            instance.edges.put(edge.id(), taken ? EdgeState.ACTIVE : EdgeState.INACTIVE);
            if (taken) {
                any = true;
                instance.nodes.put(edge.to(), NodeStatus.PENDING);
                instance.ready.add(edge.to());
            }
        }
        return any;
    }

    private void waiting(RunInstance instance, NodeDefinition definition, NodeOutcome.Wait wait, Effects.Builder fx) {
        long now = clock.millis();
        instance.state = RunInstance.State.WAITING;
        instance.waitingNode = definition.id();
        instance.nodes.put(definition.id(), NodeStatus.WAITING);
        fx.reports.add(new RunReport.WaitRequested(instance.orderId, instance.instanceId, instance.generation,
                new WaitRequest(definition.id(), wait.kind(), wait.title(), wait.event(), wait.assignee(),
                        wait.amount(), wait.timeout().toMillis(), now)));
        detail(instance, definition, new NodePatch(NodeStatus.WAITING, null, null, wait.summary(), null, null, null),
                null, fx);
        progress(instance, fx);
    }

    private void resume(RunInstance instance, NodeTask.ResumeNode resume, Effects.Builder fx) {
        NodeDefinition definition = graph(instance).node(resume.nodeId());
        Node node = catalogue.get(definition.type());
        instance.state = RunInstance.State.RUNNING;
        instance.waitingNode = null;
        NodeOutcome.Done done = node.resume(context(instance, definition, 1), resume.branch(), resume.payload());
        finished(instance, definition, done, null, fx);
        advance(instance, fx);
    }

    private void ended(RunInstance instance, NodeDefinition definition, NodeOutcome.End end, Effects.Builder fx) {
        instance.state = RunInstance.State.COMPLETE;
        instance.status = OrderStatus.fromWire(end.outcome());
        instance.reason = end.reason();
        instance.nodes.put(definition.id(), NodeStatus.SUCCEEDED);
        instance.completed.add(definition.id());
        instance.ready.clear();
        // A completed order keeps what it holds (a purchase request's reserved stock is its allocation); any other
        // end gives it back.
        Compensation.Released released = "completed".equals(end.outcome())
                ? Compensation.keepHolds(instance) : compensation.releaseHolds(instance, definition.id());
        instance.nodes.replaceAll((id, s) -> s == NodeStatus.PENDING ? NodeStatus.SKIPPED : s);
        instance.edges.replaceAll((id, s) -> s == EdgeState.PENDING ? EdgeState.INACTIVE : s);
        String summary = "Outcome: " + end.outcome() + (end.reason() == null ? "" : " (" + end.reason() + ")")
                + (released.any() ? "; " + released.describe() : "");
        ObjectNode output = Json.object();
        output.put("outcome", end.outcome());
        if (end.reason() != null) {
            output.put("reason", end.reason());
        }
        instance.outputs.set(definition.id(), output);
        detail(instance, definition, new NodePatch(NodeStatus.SUCCEEDED, null, null, summary, output, null, null),
                summary, fx);
        ObjectNode data = Json.object();
        data.set("order", summary(instance));
        data.put("outcome", end.outcome());
        data.put("reason", end.reason());
        event(instance, "order." + end.outcome(), definition.id(), data, fx);
        progress(instance, fx);
    }

    private void threw(RunInstance instance, NodeDefinition definition, int attempt, RuntimeException e,
                       long startedAt, Effects.Builder fx) {
        RetryPolicy policy = definition.retry() == null ? RetryPolicy.NONE : definition.retry();
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        if (!(e instanceof NodeFailure) && attempt < policy.maxAttempts()) {
            long backoff = policy.backoffAfter(attempt);
            instance.state = RunInstance.State.RETRYING;
            schedule(instance, "retry", definition.id(), clock.millis() + backoff, fx);
            String summary = "Attempt " + attempt + " of " + policy.maxAttempts() + " failed; retrying in "
                    + backoff + " ms";
            detail(instance, definition, new NodePatch(NodeStatus.RUNNING, startedAt, null, summary, null, message,
                    null), summary + ": " + message, fx);
            return;
        }
        instance.nodes.put(definition.id(), NodeStatus.FAILED);
        detail(instance, definition, new NodePatch(NodeStatus.FAILED, startedAt, clock.millis(),
                "Failed after " + attempt + " attempt(s)", null, message, null), "Failed: " + message, fx);
        fail(instance, definition, message, fx);
    }

    /** The run failed at {@code definition}: compensate completed nodes in reverse and end the instance errored. */
    private void fail(RunInstance instance, NodeDefinition definition, String error, Effects.Builder fx) {
        String reason = title(instance, definition) + " failed: " + error;
        instance.rollback = compensation.rollBack(instance, graph(instance), fx);
        instance.state = RunInstance.State.ERRORED;
        instance.status = OrderStatus.FAILED;
        instance.reason = reason;
        instance.ready.clear();
        ObjectNode data = Json.object();
        data.set("order", summary(instance));
        data.put("outcome", "failed");
        data.put("reason", reason);
        ObjectNode nodeData = data.putObject("node");
        nodeData.put("id", definition.id());
        nodeData.put("type", definition.type());
        nodeData.put("error", error);
        event(instance, "order.failed", definition.id(), data, fx);
        progress(instance, fx);
    }

    private void terminate(RunInstance instance, Effects.Builder fx) {
        Compensation.Released released = compensation.releaseHolds(instance, "cancel");
        instance.state = RunInstance.State.TERMINATED;
        instance.timer = null;
        instance.ready.clear();
        instance.waitingNode = null;
        fx.reports.add(new RunReport.Compensated(instance.orderId, instance.instanceId, released.stock(),
                released.authorizations(), released.shipments()));
    }

    private RunReport.InstanceStatus status(RunInstance current, NodeTask.QueryInstance query) {
        if (current == null) {
            return new RunReport.InstanceStatus(query.orderId(), query.instanceId(), 0, "terminated", null);
        }
        if (!current.instanceId.equals(query.instanceId())) {
            // an earlier generation: it handed over to the current instance
            return new RunReport.InstanceStatus(query.orderId(), query.instanceId(), current.generation, "complete",
                    null);
        }
        Rollback rollback = switch (current.state) {
            case ERRORED -> current.rollback;
            // an End node with outcome failed: the order failed on purpose and nothing was rolled back
            case COMPLETE -> current.status == OrderStatus.FAILED
                    ? new Rollback("failed", "The run ended at a failed End node; nothing was rolled back") : null;
            default -> null;
        };
        return new RunReport.InstanceStatus(current.orderId, current.instanceId, current.generation,
                current.queryState(), rollback);
    }

    private void continueAsNew(RunInstance instance, Effects.Builder fx) {
        String previous = instance.instanceId;
        instance.generation++;
        instance.instanceId = instance.orderId + "." + instance.generation;
        instance.seq = 0;
        instance.steps = 0;
        fx.reports.add(new RunReport.Continued(instance.orderId, instance.instanceId, instance.generation, previous));
        progress(instance, fx);
    }

    private void schedule(RunInstance instance, String kind, String nodeId, long due, Effects.Builder fx) {
        RunInstance.Timer timer = new RunInstance.Timer(instance.orderId, instance.instanceId, kind, nodeId, due);
        instance.timer = timer;
        fx.timers.add(timer);
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
    private void progress(RunInstance instance, Effects.Builder fx) {
        OrderStatus status = switch (instance.state) {
            case WAITING -> OrderStatus.WAITING;
            case COMPLETE, ERRORED -> instance.status;
            default -> OrderStatus.RUNNING;
        };
        RunReport.Progress previous = fx.lastProgress();
        int place = fx.reports.size();
        long at = clock.millis();
        if (previous != null && previous.instanceId().equals(instance.instanceId) && previous.status() == status) {
            place = fx.reports.indexOf(previous);
            fx.reports.remove(place);
            at = previous.at();
        } else {
            instance.seq++;
        }
        // A task reports progress after every node: what did not change since the last report is shared, not copied.
        boolean after = previous != null;
        fx.reports.add(place, new RunReport.Progress(instance.orderId, instance.instanceId, instance.generation,
                instance.seq, status, instance.reason, snapshot(instance.nodes, after ? previous.nodes() : null),
                snapshot(instance.edges, after ? previous.edges() : null),
                snapshot(instance.order, after ? previous.order() : null),
                snapshot(instance.vars, after ? previous.vars() : null), at));
    }

    private static <V> Map<String, V> snapshot(Map<String, V> now, Map<String, V> reported) {
        return now.equals(reported) ? reported : new LinkedHashMap<>(now);
    }

    private static JsonNode snapshot(ObjectNode now, JsonNode reported) {
        return now.equals(reported) ? reported : now.deepCopy();
    }

    void detail(RunInstance instance, NodeDefinition definition, NodePatch patch, String logMessage,
                Effects.Builder fx) {
        TimelineEntry log = logMessage == null ? null : new TimelineEntry(clock.millis(), "node",
                title(instance, definition) + ": " + logMessage, definition.id(), null, null);
        fx.reports.add(new RunReport.NodeDetail(instance.orderId, instance.instanceId, definition.id(), patch, log));
    }

    private void event(RunInstance instance, String name, String nodeId, ObjectNode data, Effects.Builder fx) {
        String step = instance.instanceId + ":" + nodeId + ":" + instance.steps;
        fx.events.add(new OrderEvent(name, instance.orderId, step, clock.millis(), data, null));
    }

    static String title(RunInstance instance, NodeDefinition definition) {
        String title = definition.title() == null ? definition.id() : definition.title();
        return Templates.render(title, () -> RunScope.of(instance.order, instance.vars, instance.outputs));
    }

    /** The order summary of outbound events (one shape, {@link OrderSummary}). */
    static JsonNode summary(RunInstance instance) {
        return Json.tree(OrderSummary.of(instance.order, instance.orderId));
    }
}
