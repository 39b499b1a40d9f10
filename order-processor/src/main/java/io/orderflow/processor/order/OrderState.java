package io.orderflow.processor.order;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.flows.NodeDefinition;
import io.orderflow.schemas.model.ChatMessage;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.Rollback;
import io.orderflow.schemas.model.TimelineEntry;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The live state of one order, as held in the processor's store; the API shows it as the public
 * {@link io.orderflow.schemas.query.OrderView}, which has no component for the private fields below. Immutable: every
 * change is a copy made by {@link OrderApplier}.
 *
 * @param seq           private: the sequence number of the last applied sequenced report of this generation
 * @param fingerprint   private: the start request's fingerprint, for idempotent repeats
 * @param rollbackPolls private: how many instance-status polls a failed run has had
 * @param createdAt     private: epoch milliseconds when the order was started (the index row shows it)
 * @param updatedAt     private: epoch milliseconds of the last change (the index row shows it)
 * @param version       private: increases with every change, published on {@code order-updates}
 * @param batches       private: the batches that acted on the order, the latest {@value #BATCHES_KEPT}, oldest
 *                      first: a batch's command sent again is answered as done and changes nothing; not
 *                      written while empty
 */
public record OrderState(String orderId, OrderStatus status, String reason, JsonNode order, FlowVersion flow,
                         Map<String, NodeState> nodes, Map<String, EdgeState> edges, List<Wait> waits,
                         JsonNode vars, List<TimelineEntry> timeline, List<ChatMessage> chat, String instanceId,
                         int generation, Rollback rollback, long seq, String fingerprint, int rollbackPolls,
                         long createdAt, long updatedAt, long version,
                         @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> batches) {

    public static final int TIMELINE_CAP = 400;
    public static final int CHAT_CAP = 100;
    /**
     * Batches an order remembers having acted on it. A batch sends an order's command again only for the orders it
     * acted on since its last checkpoint (a fraction of a second of work), so a repeat finds its batch among the
     * latest few; this many keeps repeats deduplicated with that many other batches acting on the order in between.
     */
    public static final int BATCHES_KEPT = 32;

    public OrderState {
        nodes = frozen(nodes);
        edges = frozen(edges);
        waits = waits == null ? List.of() : List.copyOf(waits);
        timeline = frozen(timeline);
        chat = chat == null ? List.of() : List.copyOf(chat);
        batches = batches == null ? List.of() : List.copyOf(batches);
    }

    /** The classes of the read-only maps and lists {@link #frozen} makes or takes over. */
    private static final Class<?> FROZEN = Collections.unmodifiableMap(new LinkedHashMap<>()).getClass();
    private static final Class<?> FROZEN_LIST = Collections.unmodifiableList(new ArrayList<>()).getClass();

    /**
     * A read-only copy that keeps its order, or {@code map} itself when it already is one: every change makes a new
     * state, and most changes leave most maps as they were (a node patch leaves the edges), so they are not copied
     * again and again. A map the applier has just made is handed over read-only ({@link #handOver}) and kept.
     */
    private static <K, V> Map<K, V> frozen(Map<K, V> map) {
        if (map == null) {
            return Map.of();
        }
        return map.getClass() == FROZEN ? map : Collections.unmodifiableMap(new LinkedHashMap<>(map));
    }

    /** As {@link #frozen(Map)}, for the timeline, which grows by one entry a change. */
    private static <T> List<T> frozen(List<T> list) {
        if (list == null) {
            return List.of();
        }
        return list.getClass() == FROZEN_LIST ? list : Collections.unmodifiableList(new ArrayList<>(list));
    }

    /**
     * {@code fresh}, a map the caller has just made for the next state and will not change again, read-only: the
     * state keeps it as it is instead of copying it once more. Copying it again would copy a storefront order's nodes
     * twice per change, about a seventh of everything the system allocates per order.
     */
    public static <K, V> Map<K, V> handOver(Map<K, V> fresh) {
        return Collections.unmodifiableMap(fresh);
    }

    public Optional<Wait> waitFor(String eventType) {
        return waits.stream().filter(w -> w.event().equals(eventType)).findFirst();
    }

    public Optional<Wait> waitAt(String nodeId) {
        return waits.stream().filter(w -> w.nodeId().equals(nodeId)).findFirst();
    }

    /** The node's type in the pinned flow, or {@code null} when the flow does not know it. */
    public String nodeType(String nodeId) {
        if (flow == null || flow.graph() == null || flow.graph().nodes() == null) {
            return null;
        }
        return flow.graph().nodes().stream().filter(n -> n.id().equals(nodeId))
                .map(NodeDefinition::type).findFirst().orElse(null);
    }

    public Builder edit() {
        return new Builder(this);
    }

    /** A copy with the timeline entry added: a keyed entry replaces the earlier one with its key; capped. */
    public List<TimelineEntry> timelineWith(TimelineEntry entry) {
        List<TimelineEntry> next = new ArrayList<>(timeline.size() + 1);
        next.addAll(timeline);
        if (entry.key() != null) {
            for (int i = 0; i < next.size(); i++) {
                if (entry.key().equals(next.get(i).key())) {
                    next.set(i, entry);
                    return Collections.unmodifiableList(next);
                }
            }
        }
        next.add(entry);
        if (next.size() > TIMELINE_CAP) {
            next.subList(0, next.size() - TIMELINE_CAP).clear();
        }
        return Collections.unmodifiableList(next);
    }

    /** A copy with the chat messages added, keeping only the last {@value #CHAT_CAP}. */
    public OrderState withChat(List<ChatMessage> messages) {
        List<ChatMessage> next = new ArrayList<>(chat);
        next.addAll(messages);
        return edit().chat(next.size() > CHAT_CAP ? next.subList(next.size() - CHAT_CAP, next.size()) : next).build();
    }

    /** A copy that remembers batch {@code batchId} acted on the order, keeping the latest {@value #BATCHES_KEPT}. */
    public OrderState withBatch(String batchId) {
        List<String> next = new ArrayList<>(batches);
        next.remove(batchId);
        next.add(batchId);
        return edit().batches(next.size() > BATCHES_KEPT ? next.subList(next.size() - BATCHES_KEPT, next.size())
                : next).build();
    }

    /** The chat message that carries the proposal {@code proposalId}, if any is still kept. */
    public Optional<ChatMessage> proposalMessage(String proposalId) {
        return chat.stream().filter(m -> m.proposal() != null && m.proposal().id().equals(proposalId)).findFirst();
    }

    /** Copy-on-write editing of the many components; only {@link OrderApplier} and tests use it. */
    public static final class Builder {
        private String orderId;
        private OrderStatus status;
        private String reason;
        private JsonNode order;
        private FlowVersion flow;
        private Map<String, NodeState> nodes;
        private Map<String, EdgeState> edges;
        private List<Wait> waits;
        private JsonNode vars;
        private List<TimelineEntry> timeline;
        private List<ChatMessage> chat;
        private String instanceId;
        private int generation;
        private Rollback rollback;
        private long seq;
        private String fingerprint;
        private int rollbackPolls;
        private long createdAt;
        private long updatedAt;
        private long version;
        private List<String> batches;

        private Builder(OrderState s) {
            orderId = s.orderId; status = s.status; reason = s.reason; order = s.order; flow = s.flow;
            nodes = s.nodes; edges = s.edges; waits = s.waits; vars = s.vars; timeline = s.timeline; chat = s.chat;
            instanceId = s.instanceId; generation = s.generation; rollback = s.rollback; seq = s.seq;
            fingerprint = s.fingerprint; rollbackPolls = s.rollbackPolls; createdAt = s.createdAt;
            updatedAt = s.updatedAt; version = s.version; batches = s.batches;
        }

        public Builder status(OrderStatus v) { status = v; return this; }
        public Builder reason(String v) { reason = v; return this; }
        public Builder order(JsonNode v) { order = v; return this; }
        public Builder flow(FlowVersion v) { flow = v; return this; }
        public Builder nodes(Map<String, NodeState> v) { nodes = v; return this; }
        public Builder edges(Map<String, EdgeState> v) { edges = v; return this; }
        public Builder waits(List<Wait> v) { waits = v; return this; }
        public Builder vars(JsonNode v) { vars = v; return this; }
        public Builder timeline(List<TimelineEntry> v) { timeline = v; return this; }
        public Builder chat(List<ChatMessage> v) { chat = v; return this; }
        public Builder instanceId(String v) { instanceId = v; return this; }
        public Builder generation(int v) { generation = v; return this; }
        public Builder rollback(Rollback v) { rollback = v; return this; }
        public Builder seq(long v) { seq = v; return this; }
        public Builder rollbackPolls(int v) { rollbackPolls = v; return this; }
        public Builder updatedAt(long v) { updatedAt = v; return this; }
        public Builder version(long v) { version = v; return this; }
        public Builder batches(List<String> v) { batches = v; return this; }

        public OrderState build() {
            return new OrderState(orderId, status, reason, order, flow, nodes, edges, waits, vars, timeline, chat,
                    instanceId, generation, rollback, seq, fingerprint, rollbackPolls, createdAt, updatedAt, version,
                    batches);
        }
    }
}
