package io.orderflow.schemas.topics;

import io.orderflow.schemas.batches.BatchRecord;
import io.orderflow.schemas.clock.ClockSetting;
import io.orderflow.schemas.commands.CommandEnvelope;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.customers.Customer;
import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.events.OrderUpdate;
import io.orderflow.schemas.flows.FlowRecord;
import io.orderflow.schemas.json.JsonSerde;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import tools.jackson.databind.JsonNode;

/**
 * The topic registry (see DESIGN.md, "Topics"). Every topic is keyed by order id unless its constant says otherwise,
 * so one order's messages stay in one partition and in order.
 */
public final class Topics {

    private static final Serde<String> KEY = Serdes.String();

    /** Key: flow id. A flow with all its published versions. */
    public static final Topic<String, FlowRecord> FLOWS =
            new Topic<>("flows", KEY, JsonSerde.of(FlowRecord.class), true);

    /** Key: order id. Commands from the gateway to the order's agent. */
    public static final Topic<String, CommandEnvelope> ORDER_COMMANDS =
            new Topic<>("order-commands", KEY, JsonSerde.of(CommandEnvelope.class), false);

    /** Key: the gateway instance id the reply is for. */
    public static final Topic<String, CommandReply> COMMAND_REPLIES =
            new Topic<>("command-replies", KEY, JsonSerde.of(CommandReply.class), false);

    /** Key: order id. Work for the flow-runner, from the processor and from the runner itself. */
    public static final Topic<String, NodeTask> NODE_TASKS =
            new Topic<>("node-tasks", KEY, JsonSerde.of(NodeTask.class), false);

    /** Key: order id. What the run did, for the order's agent. */
    public static final Topic<String, RunReport> RUN_REPORTS =
            new Topic<>("run-reports", KEY, JsonSerde.of(RunReport.class), false);

    /** Key: order id. The outbound business events; a documented public topic. */
    public static final Topic<String, OrderEvent> ORDER_EVENTS =
            new Topic<>("order-events", KEY, JsonSerde.of(OrderEvent.class), false);

    /** Key: order id. A notice per state change. */
    public static final Topic<String, OrderUpdate> ORDER_UPDATES =
            new Topic<>("order-updates", KEY, JsonSerde.of(OrderUpdate.class), true);

    /** Key: subscription id. Tombstone on delete. */
    public static final Topic<String, JsonNode> WEBHOOK_SUBSCRIPTIONS =
            new Topic<>("webhook-subscriptions", KEY, JsonSerde.of(JsonNode.class), true);

    /** Key: delivery id. Delivery records and their retries. */
    public static final Topic<String, JsonNode> WEBHOOK_DELIVERIES =
            new Topic<>("webhook-deliveries", KEY, JsonSerde.of(JsonNode.class), true);

    /** Key: token hash, user id or session id. */
    public static final Topic<String, JsonNode> PRINCIPALS =
            new Topic<>("principals", KEY, JsonSerde.of(JsonNode.class), true);

    /** Key: customer id. The customer directory email intake checks senders against. */
    public static final Topic<String, Customer> CUSTOMERS =
            new Topic<>("customers", KEY, JsonSerde.of(Customer.class), true);

    /**
     * Key: batch id, or {@code <batchId>/<part>}; every record of a batch goes to the partition of its id. The batch
     * operations: what each does, how far it has got, the order ids it matched and stop requests
     * ({@link BatchRecord}).
     */
    public static final Topic<String, BatchRecord> BATCHES =
            new Topic<>("batches", KEY, JsonSerde.of(BatchRecord.class), true);

    /**
     * Key: order id. An ended order's final state (JSON, as the order-processor kept it) when it leaves the live state
     * after its retention ({@code ORDER_RETENTION}): the hand-over to a warehouse or a search engine, which a Kafka
     * Connect sink reads from here. Kept 30 days, time-retained, never compacted.
     */
    public static final Topic<String, byte[]> ORDERS_ARCHIVE =
            new Topic<>("orders-archive", KEY, Serdes.ByteArray(), false,
                    Map.of("retention.ms", String.valueOf(Duration.ofDays(30).toMillis())));

    /**
     * Key: {@link ClockSetting#KEY}, one partition. The service clock's offset, written by the gateway's clock routes
     * and followed by every service started with {@code CLOCK_CONTROL=true}. Not in {@link #ALL}: a deployment
     * without clock control never has it; a service with clock control creates it when it is missing.
     */
    public static final Topic<String, ClockSetting> CLOCK =
            new Topic<>("clock", KEY, JsonSerde.of(ClockSetting.class), true);

    /** Every topic the system creates at start when missing. */
    public static final List<Topic<?, ?>> ALL = List.of(
            FLOWS, ORDER_COMMANDS, COMMAND_REPLIES, NODE_TASKS, RUN_REPORTS, ORDER_EVENTS,
            ORDER_UPDATES, WEBHOOK_SUBSCRIPTIONS, WEBHOOK_DELIVERIES, PRINCIPALS, CUSTOMERS, BATCHES, ORDERS_ARCHIVE);

    private Topics() {
    }
}
