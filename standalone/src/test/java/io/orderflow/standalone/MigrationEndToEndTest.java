package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.KafkaSettings;
import io.orderflow.runner.flows.FlowFiles;
import io.orderflow.runner.flows.FlowPublisher;
import io.orderflow.runner.flows.FlowValidator;
import io.orderflow.runner.nodes.NodeCatalogue;
import io.orderflow.schemas.flows.EdgeDefinition;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.NodeDefinition;
import io.orderflow.schemas.json.Json;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * Migrating running orders on the standalone system: a flow of purchase requests published twice, the second version
 * with the manager's approval node renamed. An order waiting at the approval on version 1 is previewed (nothing
 * changes), refused when the mapping would drop the node it stands at (nothing changes), migrated with a mapping, and
 * approved at the new node id, after which it completes on version 2, its timeline saying so; a batch migrates the
 * orders a filter matches.
 */
@ExtendWith(SharedStandalone.class)
class MigrationEndToEndTest {

    private static final Duration ORDINARY = Duration.ofSeconds(60);
    private static final String FLOW = "purchase_migration";

    private static WebTestClient http;
    private static int v1;
    private static int v2;

    @BeforeAll
    static void start(StandaloneSystem system) {
        http = SharedStandalone.client(system);
        FlowPublisher publisher = new FlowPublisher(new KafkaSettings(system.bootstrapServers()),
                new FlowValidator(NodeCatalogue.standard()), Clock.systemUTC());
        FlowDefinition base = FlowFiles.builtIn("purchase_request");
        v1 = publisher.publish(as(base, id -> id)).publishedVersion();
        v2 = publisher.publish(as(base, id -> id.equals("approval") ? "manager_approval" : id)).publishedVersion();
        await().atMost(ORDINARY).untilAsserted(() -> http.get().uri("/api/v1/flows").exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.flows[?(@.id == '" + FLOW + "')].publishedVersion").isEqualTo(v2));
    }

    /** The purchase request flow as flow {@value #FLOW}, each node id renamed by {@code rename}. */
    private static FlowDefinition as(FlowDefinition base, UnaryOperator<String> rename) {
        return new FlowDefinition(FLOW, "Purchase request (migration)", base.description(), base.orderType(),
                base.nodes().stream().map(n -> new NodeDefinition(rename.apply(n.id()), n.type(), n.title(),
                        n.settings(), n.retry())).toList(),
                base.edges().stream().map(e -> new EdgeDefinition(e.id(), rename.apply(e.from()),
                        rename.apply(e.to()), e.branch())).toList());
    }

    private static String customer() {
        return "cus_migr" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    }

    /** A purchase request of two laptops on version 1, waiting at the manager's approval. */
    private static String waitingOnV1(String customer) {
        Map<String, Object> input = Map.of("type", "purchase_request", "customerId", customer, "currency", "USD",
                "lines", List.of(Map.of("sku", "LAPTOP-14", "qty", 2)), "meta", Map.of("shipTo", "HQ"));
        String id = json(http.post().uri("/api/v1/orders").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("flowId", FLOW, "version", v1, "input", input)).exchange()
                .expectStatus().isCreated()).get("orderId").asString();
        await().atMost(ORDINARY).untilAsserted(() -> {
            JsonNode order = order(id);
            assertThat(order.get("status").asString()).isEqualTo("waiting");
            assertThat(order.get("waits").valueStream().map(w -> w.get("nodeId").asString())).contains("approval");
        });
        return id;
    }

    private static JsonNode order(String id) {
        return json(http.get().uri("/api/v1/orders/" + id).exchange().expectStatus().isOk());
    }

    private static WebTestClient.ResponseSpec migrate(String id, String body) {
        return http.post().uri("/api/v1/orders/" + id + "/migrate").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body).exchange();
    }

    private static JsonNode json(WebTestClient.ResponseSpec response) {
        return Json.MAPPER.readTree(response.expectBody().returnResult().getResponseBody());
    }

    private static List<JsonNode> migrations(JsonNode order) {
        return order.get("timeline").valueStream().filter(e -> e.get("kind").asString().equals("migrate")).toList();
    }

    @Test
    void a_waiting_order_is_previewed_migrated_with_a_mapping_approved_at_the_new_node_and_completes_on_v2() {
        String id = waitingOnV1(customer());
        long before = order(id).get("version").asLong();
        String body = """
                {"toVersion": %d, "mapping": {"approval": "manager_approval"}%s}""";

        JsonNode preview = json(migrate(id, body.formatted(v2, ", \"dryRun\": true")).expectStatus().isOk());

        assertThat(preview.get("dryRun").asBoolean()).isTrue();
        assertThat(preview.get("fromVersion").asInt()).isEqualTo(v1);
        assertThat(preview.get("toVersion").asInt()).isEqualTo(v2);
        assertThat(preview.get("waits")).singleElement().satisfies(w -> {
            assertThat(w.get("from").asString()).isEqualTo("approval");
            assertThat(w.get("to").asString()).isEqualTo("manager_approval");
        });
        assertThat(preview.get("dropped")).isEmpty();
        JsonNode unchanged = order(id);
        assertThat(unchanged.get("version").asLong()).isEqualTo(before);
        assertThat(unchanged.get("flow").get("version").asInt()).isEqualTo(v1);
        assertThat(migrations(unchanged)).isEmpty();

        JsonNode migrated = json(migrate(id, body.formatted(v2, "")).expectStatus().isOk());

        assertThat(migrated.get("ok").asBoolean()).isTrue();
        JsonNode onV2 = order(id);
        assertThat(onV2.get("flow").get("version").asInt()).isEqualTo(v2);
        assertThat(onV2.get("flow").get("graph").get("nodes").valueStream().map(n -> n.get("id").asString()))
                .contains("manager_approval").doesNotContain("approval");
        assertThat(onV2.get("waits")).singleElement()
                .satisfies(w -> assertThat(w.get("nodeId").asString()).isEqualTo("manager_approval"));
        assertThat(migrations(onV2)).singleElement().satisfies(entry -> {
            assertThat(entry.get("message").asString()).isEqualTo("Migrated from version " + v1 + " to version " + v2
                    + " of flow " + FLOW + " by open deployment: approval → manager_approval");
            assertThat(entry.get("data").get("mapping").get("approval").asString()).isEqualTo("manager_approval");
        });

        http.post().uri("/api/v1/orders/" + id + "/approvals/manager_approval")
                .contentType(MediaType.APPLICATION_JSON).bodyValue("{\"decision\": \"approved\"}").exchange()
                .expectStatus().isOk();

        JsonNode done = await().atMost(ORDINARY).until(() -> order(id),
                o -> !List.of("queued", "running", "waiting").contains(o.get("status").asString()));
        assertThat(done.get("status").asString()).isEqualTo("completed");
        assertThat(done.get("flow").get("version").asInt()).isEqualTo(v2);
        assertThat(done.get("nodes").get("manager_approval").get("status").asString()).isEqualTo("succeeded");
        assertThat(done.get("nodes").get("invoice").get("status").asString()).isEqualTo("succeeded");
    }

    @Test
    void a_migration_that_drops_the_node_the_order_stands_at_is_refused_naming_it_and_changes_nothing() {
        String id = waitingOnV1(customer());
        long before = order(id).get("version").asLong();

        JsonNode refused = json(migrate(id, "{\"toVersion\": " + v2 + "}").expectStatus().isEqualTo(409));

        assertThat(refused.get("error").asString()).isEqualTo("Order " + id + " stands at node approval, which "
                + "version " + v2 + " of flow " + FLOW + " does not have and the mapping does not move; map approval "
                + "to a node of the same type");
        JsonNode typeChanged = json(migrate(id, "{\"toVersion\": " + v2
                + ", \"mapping\": {\"approval\": \"reserve\", \"reserve\": \"manager_approval\"}}")
                .expectStatus().isEqualTo(409));
        assertThat(typeChanged.get("error").asString()).contains("node approval (approval)")
                .contains("node reserve (reserve_stock)");
        JsonNode missing = json(migrate(id, "{\"toVersion\": " + v2 + ", \"mapping\": {\"approval\": \"nope\"}}")
                .expectStatus().isEqualTo(422));
        assertThat(missing.get("error").asString()).contains("nope");
        JsonNode unknown = json(migrate(id, "{\"toVersion\": 9999}").expectStatus().isNotFound());
        assertThat(unknown.get("error").asString()).isEqualTo("Flow " + FLOW + " has no version 9999");
        migrate(id, "{\"toVersion\": \"two\"}").expectStatus().isBadRequest();
        migrate(id, "{\"toVersion\": " + v2 + ", \"mapping\": {\"approval\": \"" + "x".repeat(201) + "\"}}")
                .expectStatus().isBadRequest();

        JsonNode after = order(id);
        assertThat(after.get("version").asLong()).isEqualTo(before);
        assertThat(after.get("flow").get("version").asInt()).isEqualTo(v1);
        assertThat(after.get("status").asString()).isEqualTo("waiting");
        assertThat(migrations(after)).isEmpty();
    }

    @Test
    void a_batch_migrates_every_order_its_filter_matches_and_each_timeline_names_the_batch() {
        String customer = customer();
        List<String> orders = List.of(waitingOnV1(customer), waitingOnV1(customer));

        JsonNode accepted = json(http.post().uri("/api/v1/batches").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("""
                        {"filter": {"q": "%s"}, "action": "migrate", "flowId": "%s", "toVersion": %d,
                         "mapping": {"approval": "manager_approval"}}""".formatted(customer, FLOW, v2))
                .exchange().expectStatus().isAccepted());
        String batch = accepted.get("id").asString();
        assertThat(accepted.get("action").get("toVersion").asInt()).isEqualTo(v2);
        assertThat(accepted.get("action").has("flow")).as("the resolved graph is not shown").isFalse();

        JsonNode done = await().atMost(ORDINARY).until(() -> json(http.get().uri("/api/v1/batches/" + batch)
                .exchange().expectStatus().isOk()), b -> b.get("state").asString().equals("completed"));
        assertThat(done.get("done").asInt()).isEqualTo(2);
        assertThat(done.get("failed").asInt()).isZero();
        for (String id : orders) {
            JsonNode order = order(id);
            assertThat(order.get("flow").get("version").asInt()).as(id).isEqualTo(v2);
            assertThat(migrations(order)).as(id).singleElement().satisfies(entry -> {
                assertThat(entry.get("message").asString()).contains("by batch " + batch);
                assertThat(entry.get("data").get("batchId").asString()).isEqualTo(batch);
            });
        }
    }
}
