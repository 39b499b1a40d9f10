package io.orderflow.runner.run;

import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.json.JsonSerde;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import io.orderflow.schemas.topics.Topics;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.Topology;
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

/**
 * The runner's topology: {@code node-tasks} → run processor (instance store + timer store) → {@code run-reports},
 * {@code order-events} and {@code node-tasks} (its own {@code Advance} tasks).
 */
public final class RunTopology {

    private static final Logger log = LoggerFactory.getLogger(RunTopology.class);
    public static final String INSTANCES = "run-instances";
    public static final String TIMERS = "run-timers";
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

    public static Topology build(RunEngine engine) {
        Topology topology = new Topology();
        topology.addSource(SOURCE, Topics.NODE_TASKS.keySerde().deserializer(),
                Topics.NODE_TASKS.valueSerde().deserializer(), Topics.NODE_TASKS.name());
        topology.addProcessor(PROCESSOR, new Supplier(engine), SOURCE);
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

        private final RunEngine engine;

        Supplier(RunEngine engine) {
            this.engine = engine;
        }

        @Override
        public Processor<String, NodeTask, String, Object> get() {
            return new RunProcessor(engine);
        }

        @Override
        public Set<StoreBuilder<?>> stores() {
            return Set.of(
                    // no Streams record cache: it coalesced nothing (one task per order, usually) and pinned each
                    // entry's raw source task on the heap (see OrderAgent.stores)
                    Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(INSTANCES), Serdes.String(),
                            JsonSerde.of(RunInstance.class)),
                    Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(TIMERS), Serdes.Bytes(),
                            JsonSerde.of(RunInstance.Timer.class)));
        }
    }

    static final class RunProcessor implements Processor<String, NodeTask, String, Object> {

        private final RunEngine engine;
        private ProcessorContext<String, Object> context;
        private KeyValueStore<String, RunInstance> instances;
        private KeyValueStore<Bytes, RunInstance.Timer> timers;

        RunProcessor(RunEngine engine) {
            this.engine = engine;
        }

        @Override
        public void init(ProcessorContext<String, Object> context) {
            this.context = context;
            this.instances = context.getStateStore(INSTANCES);
            this.timers = context.getStateStore(TIMERS);
            context.schedule(SWEEP_INTERVAL, PunctuationType.WALL_CLOCK_TIME, now -> sweep());
        }

        @Override
        public void process(Record<String, NodeTask> record) {
            if (record.value() == null) {
                return;
            }
            String orderId = record.value().orderId();
            try {
                apply(orderId, engine.handle(instances.get(orderId), record.value()));
            } catch (RuntimeException e) {
                // a task the engine cannot handle must not block the partition forever: log it and move on
                log.error("Dropped task {} for order {}: {}", record.value().getClass().getSimpleName(), orderId,
                        e.toString(), e);
            }
        }

        /** Fires due timers, oldest first, at most {@link #SWEEP_BUDGET} per sweep. */
        private void sweep() {
            long now = engine.now();
            int fired = 0;
            try (KeyValueIterator<Bytes, RunInstance.Timer> due = timers.all()) {
                while (due.hasNext() && fired < SWEEP_BUDGET) {
                    KeyValue<Bytes, RunInstance.Timer> entry = due.next();
                    if (entry.value.due() > now) {
                        break;
                    }
                    timers.delete(entry.key);
                    try {
                        apply(entry.value.orderId(), engine.fire(instances.get(entry.value.orderId()), entry.value));
                    } catch (RuntimeException e) {
                        log.error("Dropped timer {} for order {}", entry.value, entry.value.orderId(), e);
                    }
                    fired++;
                }
            }
        }

        private void apply(String orderId, Effects effects) {
            if (effects.instance() != null) {
                instances.put(orderId, effects.instance());
            }
            long now = engine.now();
            for (RunInstance.Timer timer : effects.timers()) {
                timers.put(timerKey(timer), timer);
            }
            for (RunReport report : effects.reports()) {
                context.forward(new Record<String, Object>(orderId, report, now), REPORTS);
            }
            for (OrderEvent event : effects.events()) {
                context.forward(new Record<String, Object>(orderId, event, now), EVENTS);
            }
            for (NodeTask task : effects.tasks()) {
                context.forward(new Record<String, Object>(orderId, task, now), TASKS);
            }
        }

        /** Big-endian due time first, so the store iterates timers in due order. */
        static Bytes timerKey(RunInstance.Timer timer) {
            byte[] id = (timer.orderId() + "|" + timer.instanceId() + "|" + timer.nodeId())
                    .getBytes(StandardCharsets.UTF_8);
            return Bytes.wrap(ByteBuffer.allocate(8 + id.length).putLong(timer.due()).put(id).array());
        }
    }
}
