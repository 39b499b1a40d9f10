package io.orderflow.runner.run;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.orderflow.runner.nodes.Hold;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.Rollback;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One run instance as stored in the runner's RocksDB store, keyed by order id. Immutable: {@link RunDecider} decides
 * what a task or timer makes of it ({@link RunFact}s) and {@link RunApplier} makes the next instance from them by copy.
 * The JSON objects ({@code order}, {@code vars}, {@code outputs}) are never changed once in an instance: a node works
 * on copies ({@link NodeCopy}) and what it wrote comes back as a fact.
 *
 * @param seq          the last sequence number sent in a Progress report of this instance
 * @param outputs      node outputs by node id ({@code nodes.<id>} in templates and expressions)
 * @param ready        nodes to execute next, in order
 * @param steps        nodes executed by this instance (the step count; continuation starts a new instance beyond the
 *                     limit)
 * @param runs         runs of each node so far (a node on a loop runs once per pass): connector ids carry the run
 *                     number, so each pass charges and invoices anew while a replay of the same step asks for the
 *                     same ids
 * @param completed    completed node ids in completion order: compensation walks it backwards
 * @param holds        what connectors hold for this order: stock holds, payment authorizations, booked shipments
 * @param setAside     the instance as it stood before its order was set aside as an incident (its components, as
 *                     JSON), which a retry of the incident puts back; {@code null} otherwise
 * @param timer        the one pending timer (retry backoff or sleep), or null
 * @param documentText the text {@code order.documentRef} refers to, while a task is handled: not stored with the
 *                     instance (it is stored once, in the runner's documents store), but looked up for the task
 *                     ({@link RunTopology})
 */
public record RunInstance(String orderId, String instanceId, int generation, long seq, FlowVersion flow,
                          ObjectNode order, ObjectNode vars, ObjectNode outputs, State state, OrderStatus status,
                          String reason, Map<String, NodeStatus> nodes, Map<String, EdgeState> edges,
                          List<String> ready, String waitingNode, long steps, Map<String, Integer> attempts,
                          Map<String, Integer> runs, List<String> completed, List<Hold> holds, Rollback rollback,
                          JsonNode setAside, Timer timer, @JsonIgnore String documentText) {

    /** Lifecycle of an instance; {@link #queryState()} maps it onto the contract's four states. */
    public enum State { RUNNING, WAITING, SLEEPING, RETRYING, ERRORED, TERMINATED, COMPLETE }

    public RunInstance {
        state = state == null ? State.RUNNING : state;
        status = status == null ? OrderStatus.RUNNING : status;
        nodes = frozen(nodes);
        edges = frozen(edges);
        ready = ready == null ? List.of() : List.copyOf(ready);
        attempts = frozen(attempts);
        runs = frozen(runs);
        completed = completed == null ? List.of() : List.copyOf(completed);
        holds = holds == null ? List.of() : List.copyOf(holds);
    }

    /** The class of the read-only maps {@link #frozen} makes or takes over. */
    private static final Class<?> FROZEN = Collections.unmodifiableMap(new LinkedHashMap<>()).getClass();

    /**
     * A read-only copy that keeps its order, or {@code map} itself when it already is one: most facts leave most maps
     * as they were, so they are not copied again ({@link RunApplier} hands over the maps it makes read-only).
     */
    private static <K, V> Map<K, V> frozen(Map<K, V> map) {
        if (map == null) {
            return Map.of();
        }
        return map.getClass() == FROZEN ? map : Collections.unmodifiableMap(new LinkedHashMap<>(map));
    }

    /** How many times {@code nodeId} has been entered in this run (1 before its first run). */
    public int runsOf(String nodeId) {
        return runs.getOrDefault(nodeId, 1);
    }

    public boolean ended() {
        return state == State.ERRORED || state == State.TERMINATED || state == State.COMPLETE;
    }

    /** {@code running}, {@code errored}, {@code terminated} or {@code complete}, as {@code InstanceStatus} says it. */
    public String queryState() {
        return switch (state) {
            case RUNNING, WAITING, SLEEPING, RETRYING -> "running";
            case ERRORED -> "errored";
            case TERMINATED -> "terminated";
            case COMPLETE -> "complete";
        };
    }

    /** This instance with the text of its order's document, for the task being handled. */
    public RunInstance withDocumentText(String text) {
        return edit().documentText(text).build();
    }

    Builder edit() {
        return new Builder(this);
    }

    /** Copy-on-write editing of the many components; {@link RunApplier} (and the topology's traced timer) use it. */
    static final class Builder {
        private String orderId;
        private String instanceId;
        private int generation;
        private long seq;
        private FlowVersion flow;
        private ObjectNode order;
        private ObjectNode vars;
        private ObjectNode outputs;
        private State state;
        private OrderStatus status;
        private String reason;
        private Map<String, NodeStatus> nodes;
        private Map<String, EdgeState> edges;
        private List<String> ready;
        private String waitingNode;
        private long steps;
        private Map<String, Integer> attempts;
        private Map<String, Integer> runs;
        private List<String> completed;
        private List<Hold> holds;
        private Rollback rollback;
        private JsonNode setAside;
        private Timer timer;
        private String documentText;

        private Builder(RunInstance r) {
            orderId = r.orderId; instanceId = r.instanceId; generation = r.generation; seq = r.seq; flow = r.flow;
            order = r.order; vars = r.vars; outputs = r.outputs; state = r.state; status = r.status;
            reason = r.reason; nodes = r.nodes; edges = r.edges; ready = r.ready; waitingNode = r.waitingNode;
            steps = r.steps; attempts = r.attempts; runs = r.runs; completed = r.completed; holds = r.holds;
            rollback = r.rollback; setAside = r.setAside; timer = r.timer; documentText = r.documentText;
        }

        Builder instanceId(String v) { instanceId = v; return this; }
        Builder generation(int v) { generation = v; return this; }
        Builder seq(long v) { seq = v; return this; }
        Builder flow(FlowVersion v) { flow = v; return this; }
        Builder order(ObjectNode v) { order = v; return this; }
        Builder vars(ObjectNode v) { vars = v; return this; }
        Builder outputs(ObjectNode v) { outputs = v; return this; }
        Builder state(State v) { state = v; return this; }
        Builder status(OrderStatus v) { status = v; return this; }
        Builder reason(String v) { reason = v; return this; }
        Builder nodes(Map<String, NodeStatus> v) { nodes = v; return this; }
        Builder edges(Map<String, EdgeState> v) { edges = v; return this; }
        Builder ready(List<String> v) { ready = v; return this; }
        Builder waitingNode(String v) { waitingNode = v; return this; }
        Builder steps(long v) { steps = v; return this; }
        Builder attempts(Map<String, Integer> v) { attempts = v; return this; }
        Builder runs(Map<String, Integer> v) { runs = v; return this; }
        Builder completed(List<String> v) { completed = v; return this; }
        Builder holds(List<Hold> v) { holds = v; return this; }
        Builder rollback(Rollback v) { rollback = v; return this; }
        Builder setAside(JsonNode v) { setAside = v; return this; }
        Builder timer(Timer v) { timer = v; return this; }
        Builder documentText(String v) { documentText = v; return this; }

        RunInstance build() {
            return new RunInstance(orderId, instanceId, generation, seq, flow, order, vars, outputs, state, status,
                    reason, nodes, edges, ready, waitingNode, steps, attempts, runs, completed, holds, rollback,
                    setAside, timer, documentText);
        }
    }

    /**
     * A pending timer of the instance.
     *
     * @param kind        {@code retry} (run the node again) or {@code sleep} (finish a {@code control.wait})
     * @param due         epoch milliseconds
     * @param traceparent the trace context of the task that set the timer, carried by the records its firing
     *                    causes; null when there was none
     */
    public record Timer(String orderId, String instanceId, String kind, String nodeId, long due, String traceparent) {

        public Timer(String orderId, String instanceId, String kind, String nodeId, long due) {
            this(orderId, instanceId, kind, nodeId, due, null);
        }

        /** This timer, carrying {@code traceparent}. */
        public Timer traced(String traceparent) {
            return new Timer(orderId, instanceId, kind, nodeId, due, traceparent);
        }
    }
}
