package io.orderflow.processor.streams;

import io.orderflow.kafka.testing.ManualClock;
import io.orderflow.processor.approvals.ApprovalRow;
import io.orderflow.processor.order.AgentSettings;
import io.orderflow.processor.order.OrderState;
import io.orderflow.processor.timers.Due;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.commands.CommandEnvelope;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.events.OrderUpdate;
import io.orderflow.schemas.model.OrderIndexRow;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import io.orderflow.schemas.topics.Topic;
import io.orderflow.schemas.topics.Topics;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import io.orderflow.processor.approvals.ApprovalIndex;
import io.orderflow.processor.index.OrderIndex;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

/** The order agent's topology under {@link TopologyTestDriver}, with a clock that moves with its wall-clock time. */
final class AgentDriver implements AutoCloseable {

    static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    final ManualClock clock = new ManualClock(START);
    /** The orders the agent's one task wrote last, as reads see them. */
    final LiveOrders live = new LiveOrders(128);
    private final TopologyTestDriver driver;
    private final Path stateDir;
    private final TestInputTopic<String, CommandEnvelope> commands;
    private final TestInputTopic<String, RunReport> reports;
    private final TestOutputTopic<String, CommandReply> replies;
    private final TestOutputTopic<String, NodeTask> tasks;
    private final TestOutputTopic<String, OrderEvent> events;
    private final TestOutputTopic<String, OrderUpdate> updates;
    private final TestOutputTopic<String, byte[]> archive;

    AgentDriver() {
        this(AgentSettings.DEFAULTS);
    }

    AgentDriver(AgentSettings settings) {
        this(settings, OrderTopology.SWEEP_BUDGET);
    }

    AgentDriver(AgentSettings settings, int sweepBudget) {
        this(settings, sweepBudget, io.orderflow.processor.order.OrderApplier::applyAll);
    }

    /** @param applier what applies the agent's facts (a test may make it throw) */
    AgentDriver(OrderAgent.Applier applier) {
        this(AgentSettings.DEFAULTS, OrderTopology.SWEEP_BUDGET, applier);
    }

    private AgentDriver(AgentSettings settings, int sweepBudget, OrderAgent.Applier applier) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "agent-test-" + UUID.randomUUID());
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        stateDir = tempDir();
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        // the stores as the apps run them (StreamsApp): reads see the stream thread's uncommitted writes through
        // each store's transaction buffer
        props.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
        driver = new TopologyTestDriver(OrderTopology.build(settings, clock, sweepBudget, applier, live), props, START);
        commands = input(Topics.ORDER_COMMANDS);
        reports = input(Topics.RUN_REPORTS);
        replies = output(Topics.COMMAND_REPLIES);
        tasks = output(Topics.NODE_TASKS);
        events = output(Topics.ORDER_EVENTS);
        updates = output(Topics.ORDER_UPDATES);
        archive = output(Topics.ORDERS_ARCHIVE);
    }

    /** What went to {@code orders-archive} since the last read: order id to its final state. */
    List<KeyValue<String, byte[]>> archived() {
        return archive.readKeyValuesToList();
    }

    /** The updates sent since the last read, tombstones included, by order id. */
    List<KeyValue<String, OrderUpdate>> updateRecords() {
        return updates.readKeyValuesToList();
    }

    private <V> TestInputTopic<String, V> input(Topic<String, V> topic) {
        return driver.createInputTopic(topic.name(), topic.keySerde().serializer(), topic.valueSerde().serializer());
    }

    private <V> TestOutputTopic<String, V> output(Topic<String, V> topic) {
        return driver.createOutputTopic(topic.name(), topic.keySerde().deserializer(),
                topic.valueSerde().deserializer());
    }

    long now() {
        return clock.millis();
    }

    /** Sends the command and answers its one reply (asserting there is exactly one). */
    CommandReply command(OrderCommand command) {
        return command(command, Caller.OPEN);
    }

    /** Sends the command as this caller and answers its one reply (asserting there is exactly one). */
    CommandReply command(OrderCommand command, Caller caller) {
        String correlation = UUID.randomUUID().toString();
        commands.pipeInput(command.orderId(), new CommandEnvelope(correlation, "gw-1", now(), caller, command));
        List<KeyValue<String, CommandReply>> all = replies.readKeyValuesToList();
        if (all.size() != 1 || !all.getFirst().key.equals("gw-1")
                || !all.getFirst().value.correlationId().equals(correlation)) {
            throw new AssertionError("expected exactly one reply to gw-1, got " + all);
        }
        return all.getFirst().value;
    }

    void report(RunReport report) {
        reports.pipeInput(report.orderId(), report);
    }

    /** Sends the command with {@code headers} (a trace context, say); its reply stays on the output topic. */
    void command(OrderCommand command, Headers headers) {
        commands.pipeInput(new TestRecord<>(command.orderId(),
                new CommandEnvelope(UUID.randomUUID().toString(), "gw-1", now(), Caller.OPEN, command), headers,
                now()));
    }

    /** Sends the report with {@code headers}. */
    void report(RunReport report, Headers headers) {
        reports.pipeInput(new TestRecord<>(report.orderId(), report, headers, now()));
    }

    /** Everything the agent sent since the last drain, headers included, from every output topic. */
    List<TestRecord<String, ?>> sent() {
        List<TestRecord<String, ?>> all = new ArrayList<>();
        all.addAll(replies.readRecordsToList());
        all.addAll(tasks.readRecordsToList());
        all.addAll(events.readRecordsToList());
        all.addAll(updates.readRecordsToList());
        return all;
    }

    /** Sends a report under a key of the caller's choosing. */
    void report(String key, RunReport report) {
        reports.pipeInput(key, report);
    }

    /**
     * Moves only the driver's wall-clock time, firing due punctuations: real time passing while the agent's clock is
     * where clock control put it (see {@link #clock}, moved alone).
     */
    void advanceWallClock(Duration by) {
        driver.advanceWallClockTime(by);
    }

    /** Moves the clock and the driver's wall-clock time together, firing due punctuations. */
    void advance(Duration by) {
        clock.advance(by);
        driver.advanceWallClockTime(by);
    }

    OrderState state(String orderId) {
        KeyValueStore<String, byte[]> store = driver.getKeyValueStore(OrderAgent.ORDERS);
        return OrderAgent.STATES.deserializer().deserialize(OrderAgent.ORDERS, store.get(orderId));
    }

    List<NodeTask> tasks() {
        return tasks.readValuesToList();
    }

    List<OrderEvent> events() {
        return events.readValuesToList();
    }

    List<OrderUpdate> updates() {
        return updates.readValuesToList();
    }

    /** The order's row in the index store, as the list reads it. */
    OrderIndexRow indexRow(String orderId) {
        return indexRows().stream().filter(row -> row.id().equals(orderId)).findFirst().orElseThrow();
    }

    /** Every row of the index store (not the list and search keys beside them). */
    List<OrderIndexRow> indexRows() {
        KeyValueStore<String, byte[]> store = driver.getKeyValueStore(OrderAgent.INDEX);
        List<OrderIndexRow> rows = new ArrayList<>();
        try (KeyValueIterator<String, byte[]> it = store.all()) {
            it.forEachRemaining(kv -> {
                if (OrderIndex.isRow(kv.key)) {
                    rows.add(OrderIndex.read(kv.value));
                }
            });
        }
        return rows;
    }

    ApprovalRow approval(String orderId, String nodeId) {
        KeyValueStore<String, byte[]> store = driver.getKeyValueStore(OrderAgent.APPROVALS);
        return ApprovalIndex.read(store.get(ApprovalRow.key(orderId, nodeId)));
    }

    /** The agent's store of {@code name} as the queries read it: one partition's. */
    List<ReadOnlyKeyValueStore<String, byte[]>> partitions(String name) {
        return List.of(driver.<String, byte[]>getKeyValueStore(name));
    }

    /** A store of the agent, read the way the internal query API reads it. */
    <V> KeyValueStore<String, V> store(String storeName) {
        return driver.getKeyValueStore(storeName);
    }

    <V> List<V> storeValues(String storeName) {
        KeyValueStore<String, V> store = driver.getKeyValueStore(storeName);
        List<V> values = new ArrayList<>();
        try (KeyValueIterator<String, V> it = store.all()) {
            it.forEachRemaining(kv -> values.add(kv.value));
        }
        return values;
    }

    /** The deadlines and rollback polls due; an ended order's archiving is left out ({@link RetentionTest} has it). */
    List<Due> timers() {
        return this.<Due>storeValues(OrderAgent.DUE).stream().filter(due -> !Due.ARCHIVE.equals(due.kind())).toList();
    }

    /** Drains every output topic, so a later assertion sees only what follows. */
    void drain() {
        replies.readValuesToList();
        tasks.readValuesToList();
        events.readValuesToList();
        updates.readValuesToList();
    }

    @Override
    public void close() {
        driver.close();
        try {
            org.apache.kafka.common.utils.Utils.delete(stateDir.toFile()); // the driver leaves its state directory behind
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static Path tempDir() {
        try {
            return Files.createTempDirectory("agent-test");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
