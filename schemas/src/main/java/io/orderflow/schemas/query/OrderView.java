package io.orderflow.schemas.query;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.model.ChatMessage;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.Rollback;
import tools.jackson.databind.JsonNode;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * The order's live state as the API shows it (the contract's "Order live state"): what {@code GET
 * /api/v1/orders/{id}} answers, the order socket pushes and the ops chat reads. Separate from the processor's stored
 * state, which keeps private fields (a sequence counter, the start request's fingerprint, its own timestamps) this
 * record has no component for. It does show the state's {@code version}.
 *
 * <p>In this package, beside the queries it answers, rather than in {@code model}: it shows the pinned
 * {@link FlowVersion}, and {@code flows} already depends on {@code model}.
 *
 * <p>Absent members follow the mapper's rule (left out when null), except those the contract lists for the state, a
 * node and an open wait, which are shown as {@code null} when empty: {@code reason}, every member of {@link Node}
 * and of {@link Wait}. {@code rollback} is left out until a rollback has settled.
 *
 * @param orderId    {@code ord_<id>}
 * @param reason     why the order was cancelled, declined or failed
 * @param order      the order with its computed {@code subtotal}, {@code tax} and {@code total}
 * @param flow       the pinned flow version, including its graph
 * @param nodes      per node id, in the flow's order
 * @param edges      per edge id
 * @param waits      the open waits
 * @param vars       the run variables
 * @param timeline   the last 400 entries
 * @param chat       the last 100 ops chat messages
 * @param instanceId the run instance driving the order
 * @param generation the generation of that instance
 * @param rollback   how the rollback settled, once it has
 * @param version    raised by every change of the order: the command replies answer the version they produced, the
 *                   read answers it as its {@code ETag}, and {@code If-Match} on a change names the version it expects;
 *                   {@code null} in a view written by a processor that did not show it yet
 */
public record OrderView(String orderId, OrderStatus status, @JsonInclude(JsonInclude.Include.ALWAYS) String reason,
                        JsonNode order, FlowVersion flow, Map<String, Node> nodes, Map<String, EdgeState> edges,
                        List<Wait> waits, JsonNode vars, List<TimelineItem> timeline, List<ChatMessage> chat,
                        String instanceId, int generation, Rollback rollback, Long version) {

    /** The collections are never null (an answer without one reads as empty); they are taken as given, not copied. */
    public OrderView {
        nodes = nodes == null ? Map.of() : nodes;
        edges = edges == null ? Map.of() : edges;
        waits = waits == null ? List.of() : waits;
        timeline = timeline == null ? List.of() : timeline;
        chat = chat == null ? List.of() : chat;
    }

    /**
     * One node of the order's plan. {@code startedAt} is the start of the current (or last) run; {@code endedAt} is
     * {@code null} while that run is open.
     *
     * @param runs     the finished runs, oldest first
     * @param branches the branches the node took
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record Node(NodeStatus status, List<Run> runs, String summary, JsonNode output, String error,
                       List<String> branches, Long startedAt, Long endedAt) {

        public Node {
            runs = runs == null ? List.of() : runs;
        }
    }

    /** One finished run of a node, epoch milliseconds. */
    public record Run(long startedAt, long endedAt, long durationMs) {
    }

    /**
     * An open wait.
     *
     * @param kind     {@code approval} or {@code event}
     * @param event    the awaited event type ({@code approval} for an approval)
     * @param amount   the order total an approval is asked for
     * @param deadline epoch milliseconds, the scaled deadline
     * @param since    epoch milliseconds when the node began waiting
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record Wait(String nodeId, String kind, String title, String event, String assignee, BigDecimal amount,
                       Long deadline, Long since) {

        public static final String APPROVAL = "approval";

        public boolean approval() {
            return APPROVAL.equals(kind);
        }
    }

    /**
     * One timeline entry, as shown: {@code nodeId} and {@code data} are left out when empty.
     *
     * @param at epoch milliseconds
     */
    public record TimelineItem(long at, String kind, String message, String nodeId, JsonNode data) {
    }

    /** Whether the order has ended ({@link OrderStatus#terminal()}); a state without a status has not. */
    public boolean ended() {
        return status != null && status.terminal();
    }
}
