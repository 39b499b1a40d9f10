package io.orderflow.runner.run;

import io.orderflow.kafka.incident.IncidentPolicy;
import io.orderflow.kafka.incident.IncidentPolicy.Verdict;
import io.orderflow.kafka.store.GuardedStores;
import io.orderflow.kafka.tracing.TraceHeaders;
import io.orderflow.schemas.documents.Documents;
import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.json.JsonSerde;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import io.orderflow.schemas.topics.Topics;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.Topology;
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
import tools.jackson.databind.JsonNode;

/**
 * The runner's topology: {@code node-tasks} → run processor (instance store + timer store) → {@code run-reports},
 * {@code order-events} and {@code node-tasks} (its own {@code Advance} tasks).
 */
public final class RunTopology {

    private static final Logger log = LoggerFactory.getLogger(RunTopology.class);
    public static final String INSTANCES = "run-instances";
    public static final String TIMERS = "run-timers";
    /** Order documents by reference ({@link Documents}), stored once when the start task brings them. */
    public static final String DOCUMENTS = "run-documents";
    private static final String SOURCE = "node-tasks-source";
    private static final String PROCESSOR = "run-processor";
    private static final String REPORTS = "run-reports-sink";
    private static final String EVENTS = "order-events-sink";
    private static final String TASKS = "node-tasks-sink";
    /** How often due timers are swept, and how many a sweep handles at most before yielding. */
    private static final Duration SWEEP_INTERVAL = Duration.ofMillis(250);
    private static final int SWEEP_BUDGET = 200;

    private RunTopology() {
    }

    /**
     * Attempts at a task or timer whose handling throws, and nodes that may overrun their budget in one task, before
     * the order is set aside as an incident.
     */
    static final int ATTEMPTS = 3;
    static final int OVERRUNS = 3;

    /**
     * The policy for one task or timer: work that throws is tried {@value #ATTEMPTS} times; a node that overran is
     * tried again without counting, for at most {@value #OVERRUNS} nodes, its step added to {@code overran} so that
     * it fails at once the next time; an overrun without a node (no worker was free), or of a node that overran
     * before, gives up at once.
     */
    static IncidentPolicy policy(Set<String> overran) {
        return new IncidentPolicy(ATTEMPTS, OVERRUNS, failure -> failure instanceof NodeBudget.Overrun overrun
                ? overrun.step() != null && overran.add(overrun.step()) ? Verdict.RETRY_UNCOUNTED : Verdict.GIVE_UP
                : Verdict.RETRY);
    }

    public static Topology build(RunDecider decider) {
        return build(decider, new NodeBudget(Duration.ofSeconds(5), 16));
    }

    public static Topology build(RunDecider decider, NodeBudget budget) {
        Topology topology = new Topology();
        topology.addSource(SOURCE, Topics.NODE_TASKS.keySerde().deserializer(),
                Topics.NODE_TASKS.valueSerde().deserializer(), Topics.NODE_TASKS.name());
        topology.addProcessor(PROCESSOR, new Supplier(decider, budget), SOURCE);
        topology.addSink(REPORTS, Topics.RUN_REPORTS.name(), Topics.RUN_REPORTS.keySerde().serializer(),
                Topics.RUN_REPORTS.valueSerde().serializer(), PROCESSOR);
        topology.addSink(EVENTS, Topics.ORDER_EVENTS.name(), Topics.ORDER_EVENTS.keySerde().serializer(),
                Topics.ORDER_EVENTS.valueSerde().serializer(), PROCESSOR);
        topology.addSink(TASKS, Topics.NODE_TASKS.name(), Topics.NODE_TASKS.keySerde().serializer(),
                Topics.NODE_TASKS.valueSerde().serializer(), PROCESSOR);
        return topology;
    }

    /** Owns the processor's stores. */
    static final class Supplier implements ProcessorSupplier<String, NodeTask, String, Object> {

        private final RunDecider decider;
        private final NodeBudget budget;

        Supplier(RunDecider decider, NodeBudget budget) {
            this.decider = decider;
            this.budget = budget;
        }

        @Override
        public Processor<String, NodeTask, String, Object> get() {
            return new RunProcessor(decider, budget);
        }

        @Override
        public Set<StoreBuilder<?>> stores() {
            return Set.of(
                    // no Streams record cache: it coalesced nothing (one task per order, usually) and pinned each
                    // entry's raw source task on the heap (see OrderAgent.stores)
                    Stores.keyValueStoreBuilder(GuardedStores.persistent(INSTANCES), Serdes.String(),
                            JsonSerde.of(RunInstance.class)),
                    Stores.keyValueStoreBuilder(GuardedStores.persistent(TIMERS), Serdes.Bytes(),
                            JsonSerde.of(RunInstance.Timer.class)),
                    Stores.keyValueStoreBuilder(GuardedStores.persistent(DOCUMENTS), Serdes.String(),
                            Serdes.String()));
        }
    }

    /**
     * Handles each task and due timer of its partition's orders: the decider decides, and the facts it decided are
     * applied to the stored instance, which is written back with the records the decision sends. The deciding runs
     * under the node budget; a task or
     * timer that cannot be handled is tried again a bounded number of times, on the instance as stored, and then the
     * order is set aside as an incident (reported to its agent) while the partition moves on. A task keyed for one
     * order but naming another is refused.
     */
    static final class RunProcessor implements Processor<String, NodeTask, String, Object> {

        private final RunDecider decider;
        private final NodeBudget budget;
        private ProcessorContext<String, Object> context;
        private KeyValueStore<String, RunInstance> instances;
        private KeyValueStore<Bytes, RunInstance.Timer> timers;
        private KeyValueStore<String, String> documents;
        /**
         * The headers of the task being handled, whose trace context every record it causes carries
         * ({@link TraceHeaders}), and the timers it sets; during a sweep, those of the timer firing.
         */
        private Headers cause;

        RunProcessor(RunDecider decider, NodeBudget budget) {
            this.decider = decider;
            this.budget = budget;
        }

        @Override
        public void init(ProcessorContext<String, Object> context) {
            this.context = context;
            this.instances = context.getStateStore(INSTANCES);
            this.timers = context.getStateStore(TIMERS);
            this.documents = context.getStateStore(DOCUMENTS);
            // on real time; the timers are due by the decider's clock (sweep), so a change of the service clock is
            // acted on at the next sweep
            context.schedule(SWEEP_INTERVAL, PunctuationType.WALL_CLOCK_TIME, ignored -> sweep());
        }

        @Override
        public void process(Record<String, NodeTask> record) {
            cause = record.headers();
            try (TraceHeaders.LogContext ignored = TraceHeaders.logContext(record.key(),
                    TraceHeaders.traceparent(cause))) {
                process(record.key(), record.value());
            } finally {
                cause = null;
            }
        }

        private void process(String key, NodeTask task) {
            if (task == null) {
                return;
            }
            if (task.orderId() == null || !task.orderId().equals(key)) {
                log.warn("Refused a {} task keyed {} for order {}: a task is keyed by its order's id",
                        task.getClass().getSimpleName(), key, task.orderId());
                return;
            }
            if (task instanceof NodeTask.ForgetRun) {
                forget(key);
                return;
            }
            if (task instanceof NodeTask.StartRun start && start.documentText() != null) {
                documents.putIfAbsent(Documents.ref(start.documentText()), start.documentText());
            }
            NodeTask named = setAside(task);
            handle(task.orderId(), "task " + named.getClass().getSimpleName(), named,
                    (current, guard) -> decider.decide(current, task, guard));
        }

        /**
         * The task an incident names when {@code task} cannot be handled: for a {@code revive_run} that hands a
         * set-aside task back, that task, so that a revive that fails again reports what failed (and a later retry
         * hands back the same task, not a revive of it); otherwise {@code task} itself.
         */
        private static NodeTask setAside(NodeTask task) {
            if (task instanceof NodeTask.ReviveRun revive && revive.task() != null) {
                try {
                    return Json.MAPPER.treeToValue(revive.task(), NodeTask.class);
                } catch (RuntimeException e) {
                    return task;
                }
            }
            return task;
        }

        /** Drops an archived order's instance and its timer, with tombstones on their changelogs. */
        private void forget(String orderId) {
            RunInstance instance = instances.get(orderId);
            if (instance == null) {
                return;
            }
            if (instance.timer() != null) {
                timers.delete(timerKey(instance.timer()));
            }
            instances.delete(orderId);
            log.debug("Order {}: its archived run instance was dropped", orderId);
        }

        /** Fires due timers, oldest first, at most {@link #SWEEP_BUDGET} per sweep. */
        private void sweep() {
            long now = decider.now();
            int fired = 0;
            try (KeyValueIterator<Bytes, RunInstance.Timer> due = timers.all()) {
                while (due.hasNext() && fired < SWEEP_BUDGET) {
                    KeyValue<Bytes, RunInstance.Timer> entry = due.next();
                    if (entry.value.due() > now) {
                        break;
                    }
                    timers.delete(entry.key);
                    RunInstance.Timer timer = entry.value;
                    cause = TraceHeaders.of(timer.traceparent());
                    try (TraceHeaders.LogContext ignored = TraceHeaders.logContext(timer.orderId(),
                            timer.traceparent())) {
                        handle(timer.orderId(), "timer " + timer.kind() + " of node " + timer.nodeId(), null,
                                (current, guard) -> decider.fire(current, timer, guard));
                    } finally {
                        cause = null;
                    }
                    fired++;
                }
            }
        }

        /**
         * Handles one task or timer of {@code orderId} under the node budget. A node that overran fails, and the work
         * is done again on the stored instance with that node failing at once, without counting as an attempt (a node
         * that overran again, or no free worker, gives up); work that throws is tried again; when neither settles it,
         * the order becomes an incident.
         */
        private void handle(String orderId, String source, NodeTask task,
                            BiFunction<RunInstance, RunDecider.Guard, RunDecision> work) {
            Set<String> overran = new HashSet<>();
            policy(overran).handle(() -> {
                RunInstance current = withDocument(instances.get(orderId));
                RunDecision decision = budget.run(overran, guard -> work.apply(current, guard));
                apply(orderId, current, decision);
                return decision;
            }, failure -> {
                if (failure.cause() instanceof NodeBudget.Overrun e) {
                    log.warn("Order {}: {} while handling its {}", orderId, e.getMessage(), source);
                } else {
                    log.warn("Order {}: attempt {} of {} at its {} failed: {}", orderId, failure.attempt(), ATTEMPTS,
                            source, failure.cause().toString());
                }
            }, handled -> log.debug("Order {}: handled its {}", orderId, source),
                    failure -> incident(orderId, source, task, failure));
        }

        /** The stored instance with the text of its order's document, when it has one. */
        private RunInstance withDocument(RunInstance instance) {
            if (instance != null && instance.order() != null && instance.order().hasNonNull(Documents.REF_FIELD)) {
                return instance.withDocumentText(documents.get(instance.order().get(Documents.REF_FIELD).asString()));
            }
            return instance;
        }

        /**
         * Sets the order aside: the incident report names the task (as JSON, with where it was read) so a retry can
         * hand it back, and the instance keeps a copy of itself as it stood, which a retry puts back.
         */
        private void incident(String orderId, String source, NodeTask task, RuntimeException failure) {
            String cause = failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage();
            String reason = "Its " + source + " could not be handled: " + cause;
            log.error("Order {} set aside as an incident. {}", orderId, reason, failure);
            RunInstance stored = null;
            RunDecision decision;
            try {
                stored = instances.get(orderId);
                JsonNode stood = stored == null ? null
                        : stored.setAside() != null ? stored.setAside() : Json.tree(stored);
                decision = withRecord(decider.incident(stored, orderId, source, reason, stood), task);
            } catch (RuntimeException e) {
                log.error("Order {}: its stored instance is unreadable as well; reporting the incident alone", orderId,
                        e);
                stored = null;
                decision = decider.incident(null, orderId, source, reason, null);
            }
            apply(orderId, stored, decision);
        }

        /** The effects with the incident report naming the set-aside task and where it was read. */
        private RunDecision withRecord(RunDecision decision, NodeTask task) {
            if (task == null) {
                return decision;
            }
            Optional<RecordMetadata> read = context.recordMetadata();
            JsonNode record = Json.tree(task);
            List<RunReport> reports = decision.reports().stream().map(report -> report instanceof RunReport.Batch b
                    ? new RunReport.Batch(b.orderId(), b.instanceId(),
                    b.reports().stream().map(one -> named(one, record, read)).toList())
                    : named(report, record, read)).toList();
            return new RunDecision(decision.facts(), reports, decision.events(), decision.tasks(),
                    decision.timers());
        }

        private static RunReport named(RunReport report, JsonNode record, Optional<RecordMetadata> read) {
            return report instanceof RunReport.Incident i ? new RunReport.Incident(i.orderId(), i.instanceId(),
                    i.source(), i.cause(), record, read.map(RecordMetadata::topic).orElse(null),
                    read.map(RecordMetadata::partition).orElse(null), read.map(RecordMetadata::offset).orElse(null))
                    : report;
        }

        /**
         * Applies the decision's facts to {@code current}, the instance it was decided on, stores the result (a
         * decision without facts leaves the store as it is) and sends what the decision sends.
         */
        private void apply(String orderId, RunInstance current, RunDecision decision) {
            String traceparent = TraceHeaders.traceparent(cause);
            RunInstance next = decision.changesState() ? decision.applied(current) : null;
            for (RunInstance.Timer timer : decision.timers()) {
                RunInstance.Timer traced = timer.traced(traceparent);
                if (next != null && timer.equals(next.timer())) {
                    // the instance's own copy too: a timer fires only while it equals the instance's
                    next = next.edit().timer(traced).build();
                }
                timers.put(timerKey(traced), traced);
            }
            if (next != null) {
                instances.put(orderId, next);
            }
            for (RunReport report : decision.reports()) {
                context.forward(caused(orderId, report), REPORTS);
            }
            for (OrderEvent event : decision.events()) {
                context.forward(caused(orderId, event), EVENTS);
            }
            for (NodeTask task : decision.tasks()) {
                context.forward(caused(orderId, task), TASKS);
            }
        }

        /**
         * A record to send because of the task or timer being handled: it carries its trace context. Its Kafka
         * timestamp is real time, whatever the decider's clock says: a broker refuses records stamped far in the
         * future ({@code log.message.timestamp.after.max.ms}), and a webhook replay's window is in real time.
         */
        private Record<String, Object> caused(String orderId, Object value) {
            return new Record<>(orderId, value, context.currentSystemTimeMs(), TraceHeaders.carried(cause));
        }

        /** Big-endian due time first, so the store iterates timers in due order. */
        static Bytes timerKey(RunInstance.Timer timer) {
            byte[] id = (timer.orderId() + "|" + timer.instanceId() + "|" + timer.nodeId())
                    .getBytes(StandardCharsets.UTF_8);
            return Bytes.wrap(ByteBuffer.allocate(8 + id.length).putLong(timer.due()).put(id).array());
        }
    }
}
