package io.orderflow.processor.streams;

import io.orderflow.kafka.incident.IncidentPolicy;
import io.orderflow.kafka.incident.IncidentPolicy.Verdict;
import io.orderflow.kafka.store.GuardedStores;
import io.orderflow.kafka.tracing.TraceHeaders;
import io.orderflow.processor.approvals.ApprovalIndex;
import io.orderflow.processor.approvals.ApprovalRow;
import io.orderflow.processor.index.OrderIndex;
import io.orderflow.processor.order.Decision;
import io.orderflow.processor.order.Effect;
import io.orderflow.processor.order.OrderApplier;
import io.orderflow.processor.order.OrderDecider;
import io.orderflow.processor.order.OrderFact;
import io.orderflow.processor.order.OrderState;
import io.orderflow.processor.order.Rejection;
import io.orderflow.processor.store.IndexedStore;
import io.orderflow.processor.timers.Due;
import io.orderflow.schemas.commands.BatchAction;
import io.orderflow.schemas.commands.CommandEnvelope;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.events.OrderUpdate;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.json.JsonSerde;
import io.orderflow.schemas.model.Incident;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
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
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;

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
    public static final String INCIDENTS = "incidents";
    public static final String DOCUMENTS = "documents";
    /** The orders archived after their retention: order id to the time, so a read can say so rather than not found. */
    public static final String ARCHIVED = "archived-orders";

    /**
     * The largest order state the agent stores. The state goes to the store's changelog as one record, and Kafka
     * refuses records over 1 MB (the broker's and the producer's default): a state past that would fail every
     * commit of its partition. Half of it leaves room for the record's key and headers and for an incident entry.
     */
    public static final int MAX_STATE_BYTES = 512 * 1024;
    /** Attempts at a record whose processing throws, before its order becomes an incident. */
    static final int ATTEMPTS = 3;
    /** Working out what a record does is tried {@value #ATTEMPTS} times; a state too large is final at once. */
    static final IncidentPolicy POLICY = new IncidentPolicy(ATTEMPTS, 0,
            failure -> failure instanceof StateTooLarge ? Verdict.GIVE_UP : Verdict.RETRY);
    /** The largest set-aside record an incident keeps for a retry, as JSON characters (see {@code kept}). */
    static final int MAX_RECORD_CHARS = 256 * 1024;
    private static final String DUE_SOURCE = "order-processor due ";

    public static final String REPLIES = "replies-sink";
    public static final String TASKS = "tasks-sink";
    public static final String EVENTS = "events-sink";
    public static final String UPDATES = "updates-sink";
    public static final String ARCHIVE = "archive-sink";

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
    private final Duration retention;

    /**
     * Applies a decision's facts to the state: {@link OrderApplier#applyAll} in production. A seam for the test that
     * shows an apply failure sends nothing.
     */
    @FunctionalInterface
    public interface Applier {
        OrderState applyAll(OrderState before, List<OrderFact> facts, long now);
    }

    /**
     * @param live      where the agent's tasks keep the orders they wrote last, and their index stores, for reads from
     *                  other threads
     * @param retention how long an ended order is kept after its last change before it is archived
     */
    public OrderAgent(OrderDecider decider, Applier applier, Clock clock, Duration sweepInterval, int sweepBudget,
                      LiveOrders live, Duration retention) {
        this.retention = retention;
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
                Stores.keyValueStoreBuilder(GuardedStores.persistent(ORDERS), Serdes.String(),
                        Serdes.ByteArray()),
                Stores.keyValueStoreBuilder(IndexedStore.persistent(INDEX, OrderIndex.INDEXER),
                        Serdes.String(), Serdes.ByteArray()),
                Stores.keyValueStoreBuilder(IndexedStore.persistent(APPROVALS, ApprovalIndex.INDEXER),
                        Serdes.String(), Serdes.ByteArray()),
                Stores.keyValueStoreBuilder(GuardedStores.persistent(DUE), Serdes.String(),
                        JsonSerde.of(Due.class)),
                Stores.keyValueStoreBuilder(GuardedStores.persistent(INCIDENTS), Serdes.String(),
                        JsonSerde.of(Incident.class)),
                Stores.keyValueStoreBuilder(GuardedStores.persistent(DOCUMENTS), Serdes.String(),
                        Serdes.String()),
                Stores.keyValueStoreBuilder(GuardedStores.persistent(ARCHIVED), Serdes.String(),
                        Serdes.Long()));
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
        /** The order index's rows ({@link OrderIndex}), with its list, search and count keys beside them. */
        private KeyValueStore<String, byte[]> index;
        /** The approval rows ({@link ApprovalIndex}), with the inbox's keys beside them. */
        private KeyValueStore<String, byte[]> approvals;
        private KeyValueStore<String, Due> due;
        private KeyValueStore<String, Incident> incidents;
        private KeyValueStore<String, String> documents;
        private KeyValueStore<String, Long> archived;
        /**
         * The headers of the record being processed, whose trace context every record it causes carries
         * ({@link TraceHeaders}), and the timers it sets; during a sweep, those of the timer firing.
         */
        private Headers cause;
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
            latest.serve(INDEX, index);
            latest.serve(APPROVALS, approvals);
            due = context.getStateStore(DUE);
            incidents = context.getStateStore(INCIDENTS);
            documents = context.getStateStore(DOCUMENTS);
            archived = context.getStateStore(ARCHIVED);
            // The punctuator runs on real time; the timers are due by the agent's clock, which with clock control
            // is ahead of it: each sweep fires what that clock has made due, so a change of the clock is acted on at
            // the next sweep.
            context.schedule(sweepInterval, PunctuationType.WALL_CLOCK_TIME, ignored -> sweep(clock.millis()));
        }

        /**
         * Processes one command or run report. What a record does is worked out before anything is written: the
         * decision, the state it leaves and that state's bytes. A record keyed for one order but naming another is
         * refused. When working it out throws (after {@value #ATTEMPTS} attempts), or the state would outgrow
         * {@link #MAX_STATE_BYTES}, a command is answered with an error and changes nothing, and a report makes its
         * order an incident; either way the record is committed and the partition moves on.
         */
        @Override
        public void process(Record<String, Object> record) {
            long now = clock.millis();
            cause = record.headers();
            try (TraceHeaders.LogContext ignored = TraceHeaders.logContext(record.key(),
                    TraceHeaders.traceparent(cause))) {
                switch (record.value()) {
                    case CommandEnvelope envelope -> command(record.key(), envelope, now);
                    case RunReport report -> report(record.key(), report, now);
                    case null, default -> {
                        // Not ours (a foreign or unreadable record): nothing to do.
                    }
                }
            } finally {
                cause = null;
            }
        }

        /**
         * A record to send because of the one being processed: it carries that record's trace context. Its Kafka
         * timestamp is real time, whatever the agent's clock says: a broker refuses records stamped far in the future
         * ({@code log.message.timestamp.after.max.ms}), and a webhook replay's window is in real time.
         */
        private Record<String, Object> caused(String key, Object value) {
            return new Record<>(key, value, context.currentSystemTimeMs(), TraceHeaders.carried(cause));
        }

        private void command(String key, CommandEnvelope envelope, long now) {
            String orderId = envelope.command() == null ? null : envelope.command().orderId();
            if (orderId == null || !orderId.equals(key)) {
                log.warn("Refused a command keyed {} for order {}: a command is keyed by its order's id", key,
                        orderId);
                reply(envelope, orderId, Decision.Reply.rejected(Rejection.NOT_KEYED_BY_ORDER));
                return;
            }
            OrderState state = read(orderId);
            if (envelope.command() instanceof OrderCommand.RetryIncident
                    || envelope.command() instanceof OrderCommand.DismissIncident
                    || envelope.command() instanceof OrderCommand.ApplyBatchAction batch
                    && batch.action() instanceof BatchAction.RetryIncident) {
                incidentCommand(orderId, state, envelope, now);
                return;
            }
            Decision decision = decideOrAnswer500(state, envelope, now);
            Settled settled;
            try {
                settled = POLICY.attempt(() -> settled(state, applied(state, decision, now), decision.effects()),
                        retrying(orderId, "command " + envelope.command().getClass().getSimpleName()));
            } catch (StateTooLarge e) {
                reply(envelope, orderId, Decision.Reply.rejected(Rejection.tooLarge(e.getMessage())));
                return;
            } catch (RuntimeException e) {
                reply(envelope, orderId, Decision.Reply.rejected(Rejection.engineError(e.getMessage())));
                return;
            }
            carryOut(orderId, state, settled, now);
            OrderState after = settled.state();
            reply(envelope, orderId, after == null || decision.reply() == null ? decision.reply()
                    : decision.reply().withVersion(after.version()));
        }

        private void reply(CommandEnvelope envelope, String orderId, Decision.Reply reply) {
            if (envelope.replyTo() == null) {
                return;
            }
            context.forward(caused(envelope.replyTo(), new CommandReply(envelope.correlationId(), orderId,
                    reply.status(), reply.rejection(), reply.body())), REPLIES);
        }

        private void report(String key, RunReport report, long now) {
            String orderId = report.orderId();
            if (orderId == null || !orderId.equals(key)
                    || report.unpacked().stream().anyMatch(one -> !orderId.equals(one.orderId()))) {
                log.warn("Refused a {} report keyed {} for order {}: a report is keyed by its order's id",
                        report.getClass().getSimpleName(), key, orderId);
                return;
            }
            OrderState before = read(orderId);
            POLICY.handle(() -> {
                // a batch's reports are decided one by one, each on the state the one before left
                OrderState state = before;
                List<Effect> effects = new ArrayList<>();
                for (RunReport one : report.unpacked()) {
                    Decision decision = decider.onReport(state, one, now);
                    state = applied(state, decision, now);
                    effects.addAll(located(decision.effects(), one));
                }
                return settled(before, state, effects);
            }, retrying(orderId, "report"), settled -> carryOut(orderId, before, settled, now),
                    failure -> setAside(orderId, before, "order-processor run report " + kind(report), report,
                            failure, now));
        }

        /**
         * The effects with an incident the decider raised over {@code report} (one it refuses, such as a node detail
         * that names no node) saying where the report was read and keeping it, as {@link #setAside} does, so that a
         * retry can decide it again.
         */
        private List<Effect> located(List<Effect> effects, RunReport report) {
            Optional<RecordMetadata> read = context.recordMetadata();
            return effects.stream().map(effect -> effect instanceof Effect.RecordIncident(Incident i)
                    && i.topic() == null && i.record() == null && i.history().size() == 1
                    && !OrderDecider.fromRunner(i)
                    ? new Effect.RecordIncident(i.from(read.map(RecordMetadata::topic).orElse(null),
                    read.map(RecordMetadata::partition).orElse(null), read.map(RecordMetadata::offset).orElse(null),
                    kept(report), i.instanceId(), i.stood()))
                    : effect).toList();
        }

        /** What a record leaves: the state, its bytes when it changed, and the effects. */
        private record Settled(OrderState state, byte[] stored, List<Effect> effects) {
        }

        private static Settled settled(OrderState before, OrderState after, List<Effect> effects) {
            if (after == before) {
                return new Settled(after, null, effects);
            }
            byte[] stored = STATE_WRITER.serialize(ORDERS, after);
            if (stored.length > MAX_STATE_BYTES) {
                throw new StateTooLarge(stored.length);
            }
            return new Settled(after, stored, effects);
        }

        /** Logs a failed attempt at working out what a record does that will be tried again. */
        private static IncidentPolicy.Observer retrying(String orderId, String what) {
            return failure -> {
                if (failure.verdict() == Verdict.RETRY) {
                    log.warn("Order {}: attempt {} of {} at a {} failed: {}", orderId, failure.attempt(), ATTEMPTS,
                            what, failure.cause().toString());
                }
            };
        }

        /**
         * Makes the order an incident: the record that could not be processed is committed without its effects, and
         * the order fails with the cause ({@link OrderDecider#incident}). A record for an order that does not exist
         * is only logged.
         */
        private void setAside(String orderId, OrderState before, String source, Object record,
                              RuntimeException failure, long now) {
            String cause = failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage();
            if (before == null) {
                log.error("Dropped a record for unknown order {} from {}: {}", orderId, source, cause, failure);
                return;
            }
            log.error("Order {} set aside as an incident: {} could not be processed: {}", orderId, source, cause,
                    failure);
            Optional<RecordMetadata> read = context.recordMetadata();
            Incident raised = Incident.of(orderId, source, cause, now).from(read.map(RecordMetadata::topic).orElse(null),
                    read.map(RecordMetadata::partition).orElse(null), read.map(RecordMetadata::offset).orElse(null),
                    kept(record), null, null);
            Decision incident = decider.incident(before, raised, now, true);
            carryOut(orderId, before, settled(before, applied(before, incident, now), incident.effects()), now);
        }

        /**
         * The set-aside record as JSON, for a retry; {@code null} when it is too large to keep beside the order's
         * state in one incident entry (both go to the store's changelog as one record).
         */
        private static JsonNode kept(Object record) {
            JsonNode tree = Json.tree(record);
            return Json.write(tree).length() > MAX_RECORD_CHARS ? null : tree;
        }

        /**
         * Retries or dismisses one of the order's incidents, answering the incident as it is afterwards. A retry of a
         * record of the agent's own (a run report, a due timer) applies it again here, on the state the retry put
         * back; failing again sets the order aside again, and the incident is open once more with the new cause. A
         * batch retries the order's open incident, once: a batch that acted on the order before is answered as done.
         */
        private void incidentCommand(String orderId, OrderState state, CommandEnvelope envelope, long now) {
            Decision decision;
            Incident incident;
            switch (envelope.command()) {
                case OrderCommand.ApplyBatchAction batch when state == null -> {
                    incident = null;
                    decision = Decision.rejected(Rejection.notFound(orderId));
                }
                case OrderCommand.ApplyBatchAction batch when state.batches().contains(batch.batchId()) -> {
                    incident = null;
                    decision = OrderDecider.replayed(batch.batchId());
                }
                case OrderCommand.ApplyBatchAction batch -> {
                    incident = openIncident(orderId);
                    decision = incident == null ? Decision.rejected(Rejection.noOpenIncident(orderId))
                            : OrderDecider.applied(decider.retryIncident(state, incident.id(), incident,
                            envelope.caller(), batch.batchId(), now), batch.batchId());
                }
                case OrderCommand.RetryIncident retry -> {
                    incident = incidents.get(retry.incidentId());
                    decision = decider.retryIncident(state, retry.incidentId(), incident, envelope.caller(), now);
                }
                case OrderCommand.DismissIncident dismiss -> {
                    incident = incidents.get(dismiss.incidentId());
                    decision = decider.dismissIncident(state, dismiss.incidentId(), incident, envelope.caller(),
                            dismiss.note(), now);
                }
                default -> throw new IllegalStateException("Not an incident command");
            }
            if (!decision.changesState()) {
                reply(envelope, orderId, decision.reply());
                return;
            }
            Settled settled;
            try {
                settled = settled(state, applied(state, decision, now), decision.effects());
            } catch (RuntimeException e) {
                reply(envelope, orderId, Decision.Reply.rejected(Rejection.engineError(e.getMessage())));
                return;
            }
            carryOut(orderId, state, settled, now);
            if (!(envelope.command() instanceof OrderCommand.DismissIncident) && !OrderDecider.fromRunner(incident)) {
                applyAgain(orderId, incident, now);
            }
            Decision.Reply reply = decision.reply() != null ? decision.reply()
                    : new Decision.Reply(200, Json.tree(incidents.get(incident.id()).listed()));
            reply(envelope, orderId, reply);
        }

        /** Applies an incident's set-aside report or due timer again, on the state the retry put back. */
        private void applyAgain(String orderId, Incident incident, long now) {
            OrderState state = read(orderId);
            if (incident.source().startsWith(DUE_SOURCE)) {
                Due timer = Json.MAPPER.treeToValue(incident.record(), Due.class);
                POLICY.handle(() -> {
                    Decision decision = decider.onDue(state, timer, now);
                    return settled(state, applied(state, decision, now), decision.effects());
                }, retrying(orderId, "due " + timer.kind()), settled -> carryOut(orderId, state, settled, now),
                        failure -> setAside(orderId, state, incident.source(), timer, failure, now));
                return;
            }
            RunReport report = Json.MAPPER.treeToValue(incident.record(), RunReport.class);
            POLICY.handle(() -> {
                OrderState next = state;
                List<Effect> effects = new ArrayList<>();
                for (RunReport one : report.unpacked()) {
                    Decision decision = decider.onReport(next, one, now);
                    next = applied(next, decision, now);
                    effects.addAll(decision.effects());
                }
                return settled(state, next, effects);
            }, retrying(orderId, "report"), settled -> carryOut(orderId, state, settled, now),
                    failure -> setAside(orderId, state, incident.source(), report, failure, now));
        }

        /** The order's latest open incident, or {@code null}. */
        private Incident openIncident(String orderId) {
            Incident latest = null;
            try (KeyValueIterator<String, Incident> it = incidents.range(orderId + ":", orderId + ":~")) {
                while (it.hasNext()) {
                    Incident one = it.next().value;
                    if (one.open() && (latest == null || one.createdAt() > latest.createdAt())) {
                        latest = one;
                    }
                }
            }
            return latest;
        }

        /**
         * The order's incident that an operator retried last, when it is the order's latest: a new incident of the
         * order is that retry failing, so it opens that incident again rather than listing another.
         */
        private Incident retried(String orderId) {
            Incident latest = null;
            try (KeyValueIterator<String, Incident> it = incidents.range(orderId + ":", orderId + ":~")) {
                while (it.hasNext()) {
                    Incident one = it.next().value;
                    if (latest == null || one.createdAt() > latest.createdAt()) {
                        latest = one;
                    }
                }
            }
            return latest != null && Incident.RESOLVED.equals(latest.status()) && !latest.history().isEmpty()
                    && "retried".equals(latest.history().getLast().action()) ? latest : null;
        }

        private static String kind(RunReport report) {
            return report.unpacked().stream().map(one -> one.getClass().getSimpleName()).distinct()
                    .reduce((a, b) -> a + "+" + b).orElse("batch");
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
                return decider.decide(state, envelope.command(), envelope.caller(), now);
            } catch (RuntimeException e) {
                log.error("Could not decide {} for order {}", envelope.command().getClass().getSimpleName(),
                        envelope.command().orderId(), e);
                return Decision.rejected(Rejection.engineError(e.getMessage()));
            }
        }

        /** Deadlines and polls that are due, at most {@code sweepBudget} per sweep; the rest wait for the next. */
        private void sweep(long now) {
            List<KeyValue<String, Due>> ready = new ArrayList<>();
            try (KeyValueIterator<String, Due> it = due.range(Due.LOWER_BOUND, Due.upperBound(now))) {
                while (it.hasNext() && ready.size() < sweepBudget) {
                    ready.add(it.next());
                }
            }
            for (KeyValue<String, Due> entry : ready) {
                due.delete(entry.key);
                Due timer = entry.value;
                cause = TraceHeaders.of(timer.traceparent());
                try (TraceHeaders.LogContext ignored = TraceHeaders.logContext(timer.orderId(), timer.traceparent())) {
                    OrderState state = read(timer.orderId());
                    if (Due.ARCHIVE.equals(timer.kind())) {
                        archive(timer.orderId(), state, now);
                        continue;
                    }
                    POLICY.handle(() -> {
                        Decision decision = decider.onDue(state, timer, now);
                        return settled(state, applied(state, decision, now), decision.effects());
                    }, retrying(timer.orderId(), "due " + timer.kind()),
                            settled -> carryOut(timer.orderId(), state, settled, now),
                            failure -> setAside(timer.orderId(), state, "order-processor due " + timer.kind(), timer,
                                    failure, now));
                } finally {
                    cause = null;
                }
            }
        }

        /**
         * Archives an ended order whose retention has run out: its final state goes to {@code orders-archive}, and it
         * leaves the orders store, the index (its row, list keys and counts), the approvals inbox and the live
         * orders, with tombstones on their changelogs and on {@code order-updates}; the runner is told to drop its
         * run instance. What remains is the time it was
         * archived, so that a read can say so. An order changed since the timer was set gets a new one.
         */
        private void archive(String orderId, OrderState state, long now) {
            if (state == null || !state.status().terminal()) {
                return;
            }
            long due = state.updatedAt() + retention.toMillis();
            if (due > now) {
                Due timer = Due.archive(orderId, due);
                due(timer);
                return;
            }
            byte[] stored = orders.get(orderId);
            context.forward(caused(orderId, stored), ARCHIVE);
            context.forward(caused(orderId, null), UPDATES);
            context.forward(caused(orderId, new NodeTask.ForgetRun(orderId)), TASKS);
            written.remove(orderId);
            latest.forget(orderId);
            orders.delete(orderId);
            index.delete(OrderIndex.key(state));
            List<String> rows = new ArrayList<>();
            try (KeyValueIterator<String, byte[]> it = approvals.range(orderId + "|", orderId + "|~")) {
                it.forEachRemaining(entry -> rows.add(entry.key));
            }
            rows.forEach(approvals::delete);
            archived.put(orderId, now);
            log.debug("Order {} archived {} after its last change", orderId, retention);
        }

        private void due(Due timer) {
            due.put(timer.key(), timer.traced(TraceHeaders.traceparent(cause)));
        }

        /** The state after a decision's facts: {@code state} itself when it has none. */
        private OrderState applied(OrderState state, Decision decision, long now) {
            return decision.changesState() ? applier.applyAll(state, decision.facts(), now) : state;
        }

        /**
         * Carries out what a record decided: first the state it left is stored (with its index row and one
         * {@code order-updates} notice), then the effects are sent. Deciding, applying and serialising, done before
         * this, are the parts that can fail on a bad record; failing before anything was written means no task,
         * event or reply goes out without the state that explains it.
         */
        private void carryOut(String orderId, OrderState before, Settled settled, long now) {
            OrderState after = settled.state();
            List<Effect> effects = settled.effects();
            if (after != before) {
                written.remove(orderId);
                byte[] stored = settled.stored();
                orders.put(orderId, stored);
                latest.wrote(orderId, stored);
                if (awaitsReport(after)) {
                    written.put(orderId, after);
                }
                index.put(OrderIndex.key(after), OrderIndex.write(OrderIndex.rowOf(after)));
                if (after.status().terminal() && (before == null || before.status() != after.status())) {
                    due(Due.archive(orderId, after.updatedAt() + retention.toMillis()));
                }
                if (log.isDebugEnabled() && (before == null || before.status() != after.status())) {
                    log.debug("Order {} is {} (version {})", orderId, after.status(), after.version());
                }
                context.forward(caused(orderId, new OrderUpdate(orderId, after.status(), after.version(), now)),
                        UPDATES);
            }
            for (Effect effect : effects) {
                perform(orderId, effect, now);
            }
        }

        private void perform(String orderId, Effect effect, long now) {
            switch (effect) {
                case Effect.SendTask send -> context.forward(caused(orderId, send.task()), TASKS);
                case Effect.PublishEvent publish -> context.forward(caused(orderId, publish.event()), EVENTS);
                case Effect.OpenApproval open -> approvals.put(ApprovalRow.key(orderId, open.row().nodeId()),
                        ApprovalIndex.write(open.row()));
                case Effect.CloseApproval close -> {
                    String key = ApprovalRow.key(orderId, close.nodeId());
                    ApprovalRow row = ApprovalIndex.read(approvals.get(key));
                    if (row != null && ApprovalRow.PENDING.equals(row.status())) {
                        approvals.put(key, ApprovalIndex.write(row.close(close.status(), close.decidedAt(),
                                close.decidedBy(), close.note())));
                    }
                }
                case Effect.MoveApproval move -> {
                    String key = ApprovalRow.key(orderId, move.from());
                    ApprovalRow row = ApprovalIndex.read(approvals.get(key));
                    if (row != null) {
                        approvals.delete(key);
                        approvals.put(ApprovalRow.key(orderId, move.to()), ApprovalIndex.write(row.at(move.to())));
                    }
                }
                case Effect.ScheduleDeadline schedule -> {
                    Due timer = Due.deadline(orderId, schedule.nodeId(), schedule.dueAt());
                    due.put(timer.key(), timer.traced(TraceHeaders.traceparent(cause)));
                }
                case Effect.ClearDeadline clear -> due.delete(Due.deadline(orderId, clear.nodeId(), clear.dueAt()).key());
                case Effect.StoreDocument store -> documents.putIfAbsent(store.ref(), store.text());
                case Effect.RecordIncident record -> {
                    Incident incident = record.incident();
                    Incident retried = incident.history().size() == 1 ? retried(orderId) : null;
                    if (retried != null) {
                        // failing again on a retry, where the record was not read anew: it is still where it was
                        boolean read = incident.topic() != null || incident.record() != null;
                        incident = new Incident(retried.id(), orderId, incident.source(), incident.cause(),
                                retried.createdAt(), Incident.OPEN, read ? incident.topic() : retried.topic(),
                                read ? incident.partition() : retried.partition(),
                                read ? incident.offset() : retried.offset(),
                                read ? incident.record() : retried.record(), incident.instanceId(), incident.stood(),
                                retried.history()).then(Incident.OPEN,
                                new Incident.Step(now, "failed_again", null, incident.cause(), null));
                    }
                    incidents.put(incident.id(), incident);
                    log.error("Incident on order {} ({}): {}", orderId, record.incident().source(),
                            record.incident().cause());
                }
                case Effect.SchedulePoll poll -> {
                    Due timer = Due.poll(orderId, poll.attempt(), poll.dueAt());
                    due.put(timer.key(), timer.traced(TraceHeaders.traceparent(cause)));
                }
            }
        }
    }

    /** A state that would outgrow {@link #MAX_STATE_BYTES}: refused, never stored. */
    static final class StateTooLarge extends RuntimeException {

        StateTooLarge(int bytes) {
            super("The order's state would be " + bytes + " bytes, over the limit of " + MAX_STATE_BYTES);
        }
    }
}
