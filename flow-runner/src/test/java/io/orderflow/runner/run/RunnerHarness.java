package io.orderflow.runner.run;

import io.orderflow.kafka.testing.ManualClock;
import io.orderflow.runner.connectors.Connectors;
import io.orderflow.runner.flows.FlowFiles;
import io.orderflow.runner.money.Money;
import io.orderflow.runner.nodes.NodeCatalogue;
import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import io.orderflow.schemas.topics.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import tools.jackson.databind.node.ObjectNode;

/** A TopologyTestDriver around the runner topology with a clock the test moves. */
final class RunnerHarness implements AutoCloseable {

    static final Instant START = Instant.parse("2026-01-05T09:00:00Z");

    final ManualClock clock = new ManualClock(START);
    /** The decider behind the topology, to replay a step on a stored instance as a restarted runner would. */
    final RunDecider decider;
    private final NodeBudget budget;
    final TopologyTestDriver driver;
    final TestInputTopic<String, NodeTask> tasks;
    final TestOutputTopic<String, RunReport> reports;
    final TestOutputTopic<String, OrderEvent> events;
    final TestOutputTopic<String, NodeTask> ownTasks;
    /** The reports as sent on {@code run-reports} (node details batched). */
    final List<RunReport> sentReports = new ArrayList<>();
    /** The reports one by one, as the agent applies them: a batch of node details is unpacked in place. */
    final List<RunReport> allReports = new ArrayList<>();
    final List<OrderEvent> allEvents = new ArrayList<>();
    /** Every record the runner wrote, headers included: reports, events and its own tasks. */
    final List<TestRecord<String, ?>> allRecords = new ArrayList<>();

    RunnerHarness() {
        this(RunSettings.DEFAULTS);
    }

    RunnerHarness(RunSettings settings) {
        this(settings, Connectors.mock());
    }

    RunnerHarness(Connectors connectors) {
        this(RunSettings.DEFAULTS, connectors);
    }

    RunnerHarness(RunSettings settings, Connectors connectors) {
        this(NodeCatalogue.standard(), settings, connectors, new NodeBudget(Duration.ofSeconds(5), 4));
    }

    RunnerHarness(NodeCatalogue catalogue, NodeBudget budget) {
        this(catalogue, RunSettings.DEFAULTS, Connectors.mock(), budget);
    }

    private RunnerHarness(NodeCatalogue catalogue, RunSettings settings, Connectors connectors, NodeBudget budget) {
        this.budget = budget;
        decider = new RunDecider(catalogue, connectors, Money.seeded(), clock, settings);
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "runner-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        // the stores as the app runs them (StreamsApp)
        props.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
        driver = new TopologyTestDriver(RunTopology.build(decider, budget), props, START);
        tasks = driver.createInputTopic(Topics.NODE_TASKS.name(), Topics.NODE_TASKS.keySerde().serializer(),
                Topics.NODE_TASKS.valueSerde().serializer());
        reports = driver.createOutputTopic(Topics.RUN_REPORTS.name(), Topics.RUN_REPORTS.keySerde().deserializer(),
                Topics.RUN_REPORTS.valueSerde().deserializer());
        events = driver.createOutputTopic(Topics.ORDER_EVENTS.name(), Topics.ORDER_EVENTS.keySerde().deserializer(),
                Topics.ORDER_EVENTS.valueSerde().deserializer());
        ownTasks = driver.createOutputTopic(Topics.NODE_TASKS.name(), Topics.NODE_TASKS.keySerde().deserializer(),
                Topics.NODE_TASKS.valueSerde().deserializer());
    }

    static FlowVersion version(String flowId, int version) {
        return new FlowVersion(flowId, version, START.toEpochMilli(), FlowFiles.builtIn(flowId));
    }

    static FlowVersion version(FlowDefinition flow, int version) {
        return new FlowVersion(flow.id(), version, START.toEpochMilli(), flow);
    }

    /** An order object as the processor builds it. */
    static ObjectNode order(String orderId, String type, String json) {
        ObjectNode order = (ObjectNode) Json.MAPPER.readTree(json);
        order.put("id", orderId);
        order.put("type", type);
        order.put("title", type + " · " + orderId);
        if (!order.has("currency")) {
            order.put("currency", "USD");
        }
        if (!order.has("meta")) {
            order.putObject("meta");
        }
        return order;
    }

    void start(String orderId, FlowVersion flow, ObjectNode order) {
        send(new NodeTask.StartRun(orderId, orderId + ".1", flow, order, Json.object()));
    }

    /** Sends a task and lets the runner's own Advance tasks run to quiescence. */
    void send(NodeTask task) {
        tasks.pipeInput(task.orderId(), task);
        drain();
    }

    /** Sends a task with {@code headers} (a trace context, say), as {@link #send(NodeTask)}. */
    void send(NodeTask task, Headers headers) {
        tasks.pipeInput(new TestRecord<>(task.orderId(), task, headers));
        drain();
    }

    /**
     * Moves only the wall-clock time the punctuator runs on, leaving the decider's clock where clock control put it
     * ({@link #clock}, moved alone), and lets it sweep.
     */
    void advanceWallClock(Duration duration) {
        driver.advanceWallClockTime(duration);
        drain();
    }

    /** Moves the clock and lets the wall-clock punctuator sweep due timers. */
    void advance(Duration duration) {
        clock.advance(duration);
        driver.advanceWallClockTime(duration);
        drain();
    }

    private void drain() {
        // the driver feeds records written to node-tasks back into the topology itself; just collect outputs
        for (TestRecord<String, RunReport> record : reports.readRecordsToList()) {
            allRecords.add(record);
            sentReports.add(record.value());
            allReports.addAll(record.value().unpacked());
        }
        for (TestRecord<String, OrderEvent> record : events.readRecordsToList()) {
            allRecords.add(record);
            allEvents.add(record.value());
        }
        allRecords.addAll(ownTasks.readRecordsToList());
    }

    RunInstance instance(String orderId) {
        KeyValueStore<String, RunInstance> store = driver.getKeyValueStore(RunTopology.INSTANCES);
        return store.get(orderId);
    }

    <T extends RunReport> List<T> reportsOf(Class<T> type) {
        return allReports.stream().filter(type::isInstance).map(type::cast).toList();
    }

    RunReport.Progress lastProgress() {
        List<RunReport.Progress> progress = reportsOf(RunReport.Progress.class);
        return progress.getLast();
    }

    List<String> eventNames() {
        return allEvents.stream().map(OrderEvent::event).toList();
    }

    @Override
    public void close() {
        driver.close();
        budget.close();
    }
}
