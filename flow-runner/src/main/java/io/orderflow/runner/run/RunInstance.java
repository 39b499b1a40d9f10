package io.orderflow.runner.run;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.orderflow.runner.nodes.Hold;
import io.orderflow.runner.nodes.RunState;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.flows.NodeDefinition;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.Rollback;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One run instance as stored in the runner's RocksDB store, keyed by order id. It is the working copy of one task:
 * the engine loads it, mutates it while executing nodes, and writes it back in the same transaction as the reports
 * it caused (exactly-once), so plain mutable fields keep the engine short.
 */
public final class RunInstance implements RunState {

    /** Lifecycle of an instance; {@link #queryState()} maps it onto the contract's four states. */
    public enum State { RUNNING, WAITING, SLEEPING, RETRYING, ERRORED, TERMINATED, COMPLETE }

    public String orderId;
    public String instanceId;
    public int generation;
    /** Last sequence number sent in a Progress report of this instance. */
    public long seq;
    public FlowVersion flow;
    public ObjectNode order;
    public ObjectNode vars;
    /** Node outputs by node id ({@code nodes.<id>} in templates and expressions). */
    public ObjectNode outputs;
    public State state = State.RUNNING;
    public OrderStatus status = OrderStatus.RUNNING;
    public String reason;
    public Map<String, NodeStatus> nodes = new LinkedHashMap<>();
    public Map<String, EdgeState> edges = new LinkedHashMap<>();
    /** Nodes to execute next, in order. */
    public List<String> ready = new ArrayList<>();
    public String waitingNode;
    /** Nodes executed by this instance (the step count; continuation starts a new instance beyond the limit). */
    public long steps;
    public Map<String, Integer> attempts = new LinkedHashMap<>();
    /**
     * Runs of each node so far (a node on a loop runs once per pass): connector ids carry the run number, so each pass
     * charges and invoices anew while a replay of the same step asks for the same ids.
     */
    public Map<String, Integer> runs = new LinkedHashMap<>();
    /** Completed node ids in completion order: compensation walks it backwards. */
    public List<String> completed = new ArrayList<>();
    /** What connectors hold for this order: stock holds, payment authorizations, booked shipments. */
    public List<Hold> holds = new ArrayList<>();
    public Rollback rollback;
    /**
     * The instance as it stood before its order was set aside as an incident (this record's fields, as JSON), which
     * a retry of the incident puts back; {@code null} otherwise.
     */
    public JsonNode setAside;
    /** The one pending timer (retry backoff or sleep), or null. */
    public Timer timer;
    /**
     * The text {@code order.documentRef} refers to, while a task is handled: not stored with the instance (it is
     * stored once, in the runner's documents store), but looked up for the task ({@link RunTopology}).
     */
    @JsonIgnore
    public String documentText;

    // ---- RunState: what the node executing in this run sees ------------------------------------------------

    @Override
    public String orderId() {
        return orderId;
    }

    @Override
    public int generation() {
        return generation;
    }

    @Override
    public ObjectNode order() {
        return order;
    }

    @Override
    public ObjectNode vars() {
        return vars;
    }

    @Override
    public ObjectNode outputs() {
        return outputs;
    }

    @Override
    public String documentText() {
        return documentText;
    }

    @Override
    public int runsOf(String nodeId) {
        return runs.getOrDefault(nodeId, 1);
    }

    @Override
    public List<String> completed() {
        return completed;
    }

    @Override
    public List<Hold> holds() {
        return holds;
    }

    @Override
    public void holds(List<Hold> holds) {
        this.holds = holds;
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
