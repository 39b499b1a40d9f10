package io.orderflow.runner.flows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.kafka.KafkaSettings;
import io.orderflow.runner.nodes.NodeCatalogue;
import io.orderflow.schemas.flows.EdgeDefinition;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.FlowRecord;
import io.orderflow.schemas.flows.NodeDefinition;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class FlowFilesTest {

    private static final Path GOLDEN = Path.of("src/test/resources/golden/flows");
    private final FlowValidator validator = new FlowValidator(NodeCatalogue.standard());

    /** Each flow file, as parsed into the schema record and written back, matches its golden JSON. */
    @ParameterizedTest
    @ValueSource(strings = {"purchase_request", "b2b_order", "reorder", "subscription", "storefront_order"})
    void flowFileMatchesGoldenJson(String id) throws IOException {
        FlowDefinition flow = FlowFiles.builtIn(id);
        JsonNode written = Json.tree(flow);
        Path golden = GOLDEN.resolve(id + ".json");
        if (Boolean.getBoolean("updateGolden")) {
            Files.createDirectories(GOLDEN);
            Files.writeString(golden, Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(written) + "\n");
        }
        assertThat(Json.write(written)).isEqualTo(Json.write(Json.MAPPER.readTree(Files.readString(golden))));
        assertThat(flow.id()).isEqualTo(id);
        assertThat(flow.orderType()).isEqualTo(OrderType.fromWire(id));
        validator.validate(flow);
    }

    @Test
    void seededFlowsTogetherUseEveryNodeType() {
        Set<String> used = FlowFiles.seeded().stream().flatMap(f -> f.nodes().stream()).map(NodeDefinition::type)
                .collect(Collectors.toSet());
        assertThat(used).containsExactlyInAnyOrderElementsOf(NodeCatalogue.standard().types());
    }

    @Test
    void unknownNodeTypeIsAClearError() {
        FlowDefinition flow = flow(List.of(node("a", "teleport"), node("end", "end")), List.of(edge("e1", "a", "end", null)));
        assertThatThrownBy(() -> validator.validate(flow))
                .hasMessageContaining("Node a has unknown type 'teleport'");
    }

    @Test
    void danglingEdgeIsAClearError() {
        FlowDefinition flow = flow(List.of(node("a", "tax"), node("end", "end")),
                List.of(edge("e1", "a", "end", null), edge("e2", "a", "nowhere", null)));
        assertThatThrownBy(() -> validator.validate(flow))
                .hasMessageContaining("Edge e2 points to unknown node 'nowhere'");
    }

    @Test
    void edgeWithoutFromOrToIsAClearError() {
        FlowDefinition flow = flow(List.of(node("a", "tax"), node("end", "end")),
                List.of(edge("e1", "a", "end", null), edge("e2", null, "end", null), edge("e3", "a", null, null)));
        assertThatThrownBy(() -> validator.validate(flow)).isInstanceOfSatisfying(
                FlowValidator.InvalidFlowException.class,
                e -> assertThat(e.problems()).containsExactly("Edge e2 has no from", "Edge e3 has no to"));
    }

    @Test
    void flowWithoutReachableEndIsAClearError() {
        FlowDefinition flow = flow(List.of(node("a", "tax"), node("b", "pricing"), node("end", "end")),
                List.of(edge("e1", "a", "b", null)));
        assertThatThrownBy(() -> validator.validate(flow))
                .hasMessageContaining("No End node is reachable from the start node a");
    }

    @Test
    void unknownBranchAndBadExpressionAreReported() {
        FlowDefinition flow = flow(List.of(node("a", "reserve_stock"),
                        new NodeDefinition("c", "condition", "C", Json.MAPPER.readTree("{\"expression\":\"order.total >\"}"), null),
                        node("end", "end")),
                List.of(edge("e1", "a", "c", "maybe"), edge("e2", "c", "end", "true")));
        assertThatThrownBy(() -> validator.validate(flow))
                .hasMessageContaining("Edge e1 uses branch 'maybe' that node a (reserve_stock) does not have")
                .hasMessageContaining("Condition node c: Invalid expression");
    }

    @Test
    void publishingAppendsAnImmutableVersion() {
        Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
        FlowPublisher publisher = new FlowPublisher(new KafkaSettings("unused:9092"), validator, clock);
        FlowDefinition flow = FlowFiles.builtIn("storefront_order");

        FlowRecord first = publisher.next(null, flow);
        FlowRecord second = publisher.next(first, flow);

        assertThat(first.publishedVersion()).isEqualTo(1);
        assertThat(second.publishedVersion()).isEqualTo(2);
        assertThat(second.versions()).extracting(v -> v.version()).containsExactly(1, 2);
        assertThat(second.resolve(1)).contains(first.versions().getFirst());
        assertThat(second.nodeCount()).isEqualTo(flow.nodes().size());
    }

    private static FlowDefinition flow(List<NodeDefinition> nodes, List<EdgeDefinition> edges) {
        return new FlowDefinition("t", "T", "test", OrderType.STOREFRONT_ORDER, nodes, edges);
    }

    private static NodeDefinition node(String id, String type) {
        return new NodeDefinition(id, type, id, null, null);
    }

    private static EdgeDefinition edge(String id, String from, String to, String branch) {
        return new EdgeDefinition(id, from, to, branch);
    }
}
