package io.orderflow.processor.streams;

import io.orderflow.processor.order.AgentSettings;
import io.orderflow.processor.order.OrderApplier;
import io.orderflow.processor.order.OrderDecider;
import io.orderflow.schemas.topics.Topic;
import io.orderflow.schemas.topics.Topics;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.Topology;

import java.time.Clock;
import java.time.Duration;

/** The processor's topology: two co-partitioned sources, the order agent, five sinks. Plain Java, no Spring. */
public final class OrderTopology {

    public static final Duration SWEEP_INTERVAL = Duration.ofSeconds(1);
    public static final int SWEEP_BUDGET = 500;

    private OrderTopology() {
    }

    public static Topology build(AgentSettings settings, Clock clock, LiveOrders live) {
        return build(settings, clock, SWEEP_BUDGET, OrderApplier::applyAll, live);
    }

    /**
     * @param sweepBudget at most this many due timers are handled per sweep; the rest wait for the next one
     * @param applier     applies a decision's facts to the state ({@link OrderApplier#applyAll}; tests swap it)
     * @param live        where the tasks keep the orders they wrote last, for reads ({@link LiveOrders})
     */
    public static Topology build(AgentSettings settings, Clock clock, int sweepBudget, OrderAgent.Applier applier,
                                 LiveOrders live) {
        Topology topology = new Topology();
        topology.addSource("commands", Topics.ORDER_COMMANDS.keySerde().deserializer(),
                anyValue(Topics.ORDER_COMMANDS), Topics.ORDER_COMMANDS.name());
        topology.addSource("reports", Topics.RUN_REPORTS.keySerde().deserializer(),
                anyValue(Topics.RUN_REPORTS), Topics.RUN_REPORTS.name());
        topology.addProcessor("order-agent",
                new OrderAgent(new OrderDecider(settings), applier, clock, SWEEP_INTERVAL, sweepBudget, live,
                        settings.orderRetention()),
                "commands", "reports");
        sink(topology, OrderAgent.REPLIES, Topics.COMMAND_REPLIES);
        sink(topology, OrderAgent.TASKS, Topics.NODE_TASKS);
        sink(topology, OrderAgent.EVENTS, Topics.ORDER_EVENTS);
        sink(topology, OrderAgent.UPDATES, Topics.ORDER_UPDATES);
        sink(topology, OrderAgent.ARCHIVE, Topics.ORDERS_ARCHIVE);
        return topology;
    }

    @SuppressWarnings("unchecked")
    private static Deserializer<Object> anyValue(Topic<String, ?> topic) {
        return (Deserializer<Object>) topic.valueSerde().deserializer();
    }

    private static <V> void sink(Topology topology, String name, Topic<String, V> topic) {
        Serializer<V> values = topic.valueSerde().serializer();
        topology.addSink(name, topic.name(), topic.keySerde().serializer(), values, "order-agent");
    }
}
