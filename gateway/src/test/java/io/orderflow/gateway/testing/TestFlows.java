package io.orderflow.gateway.testing;

import io.orderflow.schemas.flows.EdgeDefinition;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.FlowRecord;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.flows.NodeDefinition;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderType;
import io.orderflow.schemas.topics.Topics;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/** TEST ONLY. Flows written to the real {@code flows} topic, as the flow-runner would seed them. */
public final class TestFlows {

    private TestFlows() {
    }

    /** A flow published in versions {@code 1..published} (none when 0), each with {@code nodes + version - 1} nodes. */
    public static FlowRecord flow(String id, OrderType type, int published, long updatedAt, int nodes) {
        List<FlowVersion> versions = java.util.stream.IntStream.rangeClosed(1, published)
                .mapToObj(v -> new FlowVersion(id, v, updatedAt, graph(id, type, nodes + v - 1))).toList();
        return new FlowRecord(id, "Flow " + id, "A test flow", type, published == 0 ? null : published, updatedAt,
                versions);
    }

    private static FlowDefinition graph(String id, OrderType type, int nodes) {
        List<NodeDefinition> defs = java.util.stream.IntStream.range(0, nodes)
                .mapToObj(i -> new NodeDefinition(i == nodes - 1 ? "end" : "n" + i, i == nodes - 1 ? "end" : "pricing",
                        "Node " + i, Json.object(), null)).toList();
        List<EdgeDefinition> edges = java.util.stream.IntStream.range(0, nodes - 1)
                .mapToObj(i -> new EdgeDefinition("e" + i, defs.get(i).id(), defs.get(i + 1).id(), null)).toList();
        return new FlowDefinition(id, "Flow " + id, "A test flow", type, defs, edges);
    }

    public static void publish(String bootstrapServers, FlowRecord... flows) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        try (KafkaProducer<String, FlowRecord> producer = new KafkaProducer<>(props,
                Topics.FLOWS.keySerde().serializer(), Topics.FLOWS.valueSerde().serializer())) {
            for (FlowRecord flow : flows) {
                producer.send(new ProducerRecord<>(Topics.FLOWS.name(), flow.id(), flow));
            }
            producer.flush();
        }
    }
}
