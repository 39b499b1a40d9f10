package io.orderflow.processor.streams;

import io.orderflow.processor.approvals.ApprovalRow;
import io.orderflow.processor.index.OrderIndex;
import io.orderflow.processor.order.Decision;
import io.orderflow.processor.order.Effect;
import io.orderflow.processor.order.OrderApplier;
import io.orderflow.processor.order.OrderDecider;
import io.orderflow.processor.order.OrderFact;
import io.orderflow.processor.order.OrderState;
import io.orderflow.processor.timers.Due;
import io.orderflow.schemas.commands.CommandEnvelope;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.events.OrderUpdate;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.json.JsonSerde;
import io.orderflow.schemas.model.OrderIndexRow;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.reports.RunReport;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The order's agent in the topology: one processor fed by {@code order-commands} and {@code run-reports}
 * (co-partitioned by order id), so everything about one order happens in one task, in order. It owns its stores:
 * live state, the order index, approval rows and the due-time index of deadlines and rollback polls.
 */
public final class OrderAgent implements ProcessorSupplier<String, Object, String, Object> {

    public static final String ORDERS = "orders";
    public static final String INDEX = "order-index-rows";
    public static final String APPROVALS = "approvals";
    public static final String DUE = "due-timers";

    public static final String REPLIES = "replies-sink";
    public static final String TASKS = "tasks-sink";
    public static final String EVENTS = "events-sink";
    public static final String UPDATES = "updates-sink";

    /** How the orders store's values are written and read: an order's state as JSON. */
    public static final JsonSerde<OrderState> STATES = JsonSerde.of(OrderState.class);

    private static final Logger log = LoggerFactory.getLogger(OrderAgent.class);
    private static final Serializer<OrderState> STATE_WRITER = STATES.serializer();
    private static final Deserializer<OrderState> STATE_READER = STATES.deserializer();
    /**
     * Most orders whose last written state a task keeps as an object (see {@code Agent.written}). Only orders that
     * await a runner report are kept, and only until it comes, so the map holds about the orders in flight on one
     * partition; the cap bounds it when many runs sleep or retry. A state with its nodes and timeline is some 15 KB
     * of heap; a miss only reads the store.
     */
    static final int WRITTEN_CAP = 256;

    private final OrderDecider decider;
    private final Applier applier;
    private final Clock clock;
    private final Duration sweepInterval;
    private final int sweepBudget;
    private final LiveOrders live;

    /**
     * Applies a decision's facts to the state: {@link OrderApplier#applyAll} in production. A seam for the test that
     * shows an apply failure sends nothing.
     */
    @FunctionalInterface
    public interface Applier {
        OrderState applyAll(OrderState before, List<OrderFact> facts, long now);
    }

    /** @param live where the agent's tasks keep the orders they wrote last, for reads from other threads */
    public OrderAgent(OrderDecider decider, Applier applier, Clock clock, Duration sweepInterval, int sweepBudget,
                      LiveOrders live) {
        this.decider = decider;
        this.applier = applier;
        this.clock = clock;
        this.sweepInterval = sweepInterval;
        this.sweepBudget = sweepBudget;
        this.live = live;
    }

    @Override
    public Set<StoreBuilder<?>> stores() {
        // No Streams record cache on any store. An order is written about twice (its start, then each runner task's
        // batch), far apart, so a cache coalesced nothing: the changelogs got one record per write with it as
        // without. And since Kafka Streams 4 a cached entry keeps the raw source record that last wrote it
        // (KIP-1034, for error handlers) outside the cache's size accounting: the 10 MB cache held some 25,000
        // small index rows, each pinning a 4 KB report or command, which doubled the live heap (about 300 MB
        // after a collection instead of 150) and the collector's CPU. The order's last state is kept as an object
        // instead (written, below).
        // The orders store holds the state's JSON as bytes, which the agent writes itself (STATES): the same bytes
        // go to the store and to the live orders that reads are answered from.
        return Set.of(
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ORDERS), Serdes.String(),
                        Serdes.ByteArray()),
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(INDEX), Serdes.String(),
                        JsonSerde.of(OrderIndexRow.class)),
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(APPROVALS), Serdes.String(),
                        JsonSerde.of(ApprovalRow.class)),
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(DUE), Serdes.String(),
                        JsonSerde.of(Due.class)));
    }

    @Override
    public Processor<String, Object, String, Object> get() {
        return new Agent();
    }

    private final class Agent implements Processor<String, Object, String, Object> {

        private ProcessorContext<String, Object> context;
        private KeyValueStore<String, byte[]> orders;
        private int partition;
        private LiveOrders.Partition latest;
        private KeyValueStore<String, OrderIndexRow> index;
        private KeyValueStore<String, ApprovalRow> approvals;
        private KeyValueStore<String, Due> due;
        /**
         * The states this task wrote last of the orders that await a runner report ({@link #awaitsReport}), as
         * objects: the report usually follows within milliseconds, and reading it back from the store would
         * deserialise the JSON the task just wrote. Only this processor writes the store, and every write goes
         * through here, so an entry is what the store holds. A task that fails (an aborted transaction) is closed and
         * initialised again, which empties it.
         *
         * <p>An order that waits for a person or an event, or has ended, is not kept: its next write may be hours
         * away. Keeping every written state (256 a task) made each young collection copy about 11 MB of states that
         * lived just long enough to be caught by it (the cache turned over in under a second at 500 orders/s), which
         * was most of the collector's pause.
         */
        private final Map<String, OrderState> written = new LinkedHashMap<>(256, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, OrderState> eldest) {
                return size() > WRITTEN_CAP;
            }
        };

        @Override
        public void init(ProcessorContext<String, Object> context) {
            written.clear();
            this.context = context;
            partition = context.taskId().partition();
            latest = live.open(partition);
            orders = context.getStateStore(ORDERS);
            index = context.getStateStore(INDEX);
            approvals = context.getStateStore(APPROVALS);
            due = context.getStateStore(DUE);
            context.schedule(sweepInterval, PunctuationType.WALL_CLOCK_TIME, this::sweep);
        }

        @Override
        public void process(Record<String, Object> record) {
            long now = clock.millis();
            switch (record.value()) {
                case CommandEnvelope envelope -> {
                    String orderId = envelope.command().orderId();
                    OrderState state = read(orderId);
                    Decision decision = decideOrAnswer500(state, envelope, now);
                    carryOut(orderId, state, decision, now);
                    Decision.Reply reply = decision.reply();
                    context.forward(new Record<>(envelope.replyTo(),
                            new CommandReply(envelope.correlationId(), orderId, reply.status(), reply.body()), now),
                            REPLIES);
                }
                case RunReport report -> {
                    // a batch's reports are decided one by one, each on the state the one before left
                    OrderState before = read(report.orderId());
                    OrderState state = before;
                    List<Effect> effects = new ArrayList<>();
                    for (RunReport one : report.unpacked()) {
                        Decision decision = decider.onReport(state, one, now);
                        state = applied(state, decision, now);
                        effects.addAll(decision.effects());
                    }
                    carryOut(report.orderId(), before, state, effects, now);
                }
                case null, default -> {
                    // Not ours (a foreign or unreadable record): nothing to do.
                }
            }
        }

        private OrderState read(String orderId) {
            OrderState state = written.get(orderId);
            if (state != null) {
                return state;
            }
            byte[] stored = latest.latest(orderId);
            return STATE_READER.deserialize(ORDERS, stored != null ? stored : orders.get(orderId));
        }

        /** Queued or running: a runner task of the order is out, and its reports will follow. */
        private static boolean awaitsReport(OrderState state) {
            return state.status() == OrderStatus.QUEUED || state.status() == OrderStatus.RUNNING;
        }

        @Override
        public void close() {
            written.clear();
            live.close(partition, latest);
        }

        /**
         * The decision on a command. Deciding changes nothing, so a command the decider cannot handle (one written to
         * the topic by something other than the gateway, say) is answered 500 with the order left as it was, rather
         * than dropped without a reply.
         */
        private Decision decideOrAnswer500(OrderState state, CommandEnvelope envelope, long now) {
            try {
                return decider.decide(state, envelope.command(), now);
            } catch (RuntimeException e) {
                log.error("Could not decide {} for order {}", envelope.command().getClass().getSimpleName(),
                        envelope.command().orderId(), e);
                return Decision.none().replying(500, Json.object().put("error", "Engine error: " + e.getMessage()));
            }
        }

        /** Deadlines and polls that are due, at most {@code sweepBudget} per sweep; the rest wait for the next. */
        private void sweep(long now) {
            List<KeyValue<String, Due>> ready = new ArrayList<>();
            try (KeyValueIterator<String, Due> it = due.range(null, Due.upperBound(now))) {
                while (it.hasNext() && ready.size() < sweepBudget) {
                    ready.add(it.next());
                }
            }
            for (KeyValue<String, Due> entry : ready) {
                due.delete(entry.key);
                Due timer = entry.value;
                OrderState state = read(timer.orderId());
                carryOut(timer.orderId(), state, decider.onDue(state, timer, now), now);
            }
        }

        /** Carries out one decision on {@code before}: a command's, or a due timer's. */
        private void carryOut(String orderId, OrderState before, Decision decision, long now) {
            carryOut(orderId, before, applied(before, decision, now), decision.effects(), now);
        }

        /** The state after a decision's facts: {@code state} itself when it has none. */
        private OrderState applied(OrderState state, Decision decision, long now) {
            return decision.changesState() ? applier.applyAll(state, decision.facts(), now) : state;
        }

        /**
         * Carries out what a record decided: first the state it left is stored (with its index row and one
         * {@code order-updates} notice), then the effects are sent. Applying, done before this, is the part that can
         * fail on a bad state; failing before anything was sent means no task, event or reply goes out without the
         * state that explains it. An apply failure is not caught: it fails the record, the exactly-once transaction
         * aborts, and the stream thread's uncaught-exception handler decides what happens next.
         */
        private void carryOut(String orderId, OrderState before, OrderState after, List<Effect> effects, long now) {
            if (after != before) {
                written.remove(orderId);
                byte[] stored = STATE_WRITER.serialize(ORDERS, after);
                orders.put(orderId, stored);
                latest.wrote(orderId, stored);
                if (awaitsReport(after)) {
                    written.put(orderId, after);
                }
                index.put(OrderIndex.key(after), OrderIndex.rowOf(after));
                context.forward(new Record<>(orderId, new OrderUpdate(orderId, after.status(), after.version(), now),
                        now), UPDATES);
            }
            for (Effect effect : effects) {
                perform(orderId, effect, now);
            }
        }

        private void perform(String orderId, Effect effect, long now) {
            switch (effect) {
                case Effect.SendTask send -> context.forward(new Record<>(orderId, send.task(), now), TASKS);
                case Effect.PublishEvent publish -> context.forward(new Record<>(orderId, publish.event(), now), EVENTS);
                case Effect.OpenApproval open -> approvals.put(ApprovalRow.key(orderId, open.row().nodeId()), open.row());
                case Effect.CloseApproval close -> {
                    String key = ApprovalRow.key(orderId, close.nodeId());
                    ApprovalRow row = approvals.get(key);
                    if (row != null && ApprovalRow.PENDING.equals(row.status())) {
                        approvals.put(key, row.close(close.status(), close.decidedAt(), close.decidedBy(), close.note()));
                    }
                }
                case Effect.ScheduleDeadline schedule -> {
                    Due timer = Due.deadline(orderId, schedule.nodeId(), schedule.dueAt());
                    due.put(timer.key(), timer);
                }
                case Effect.ClearDeadline clear -> due.delete(Due.deadline(orderId, clear.nodeId(), clear.dueAt()).key());
                case Effect.SchedulePoll poll -> {
                    Due timer = Due.poll(orderId, poll.attempt(), poll.dueAt());
                    due.put(timer.key(), timer);
                }
            }
        }
    }
}
