package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.topics.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * Resolving incidents on the standalone system: a waiting order is sent a run report it cannot apply (a node detail
 * that names no node, as {@link HostileInputEndToEndTest} does), so it is set aside; an operator lists it, retries it
 * (the same record fails again, and the incident says so), dismisses it with a note, and is refused what no longer
 * applies.
 */
@ExtendWith(SharedStandalone.class)
class IncidentsEndToEndTest {

    private static final Duration ORDINARY = Duration.ofSeconds(30);
    private static final String CAUSE = "A node detail report names no node";

    private static WebTestClient http;
    private static String bootstrap;

    @BeforeAll
    static void start(StandaloneSystem system) {
        http = SharedStandalone.client(system);
        bootstrap = system.bootstrapServers();
    }

    @Test
    void an_incident_is_listed_retried_without_a_fix_fails_again_and_is_dismissed_with_a_note() {
        String orderId = waitingB2bOrder();
        RecordMetadata poisoned = poison(orderId);

        await().atMost(ORDINARY).untilAsserted(() -> {
            JsonNode order = get("/api/v1/orders/" + orderId);
            assertThat(order.get("status").asString()).isEqualTo("failed");
            assertThat(order.get("reason").asString()).startsWith("Incident: ").contains(CAUSE);
        });

        // listed, with where its record was read
        JsonNode listed = await().atMost(ORDINARY).until(() -> incidentOf(orderId), i -> i != null);
        String id = listed.get("id").asString();
        assertThat(id).startsWith(orderId + ":");
        assertThat(listed.get("status").asString()).isEqualTo("open");
        assertThat(listed.get("cause").asString()).contains(CAUSE);
        assertThat(listed.get("topic").asString()).isEqualTo(Topics.RUN_REPORTS.name());
        assertThat(listed.get("partition").asInt()).isEqualTo(poisoned.partition());
        assertThat(listed.get("offset").asLong()).isEqualTo(poisoned.offset());
        assertThat(actions(listed)).containsExactly("raised");

        // a retry without a fix: the record fails again, the same incident is open again and its history says so
        JsonNode retried = post("/api/v1/incidents/" + id + "/retry", null, 200);
        assertThat(retried.get("id").asString()).isEqualTo(id);
        assertThat(retried.get("status").asString()).isEqualTo("open");
        assertThat(retried.get("cause").asString()).contains(CAUSE);
        assertThat(actions(retried)).containsExactly("raised", "retried", "failed_again");
        await().atMost(ORDINARY).untilAsserted(() -> {
            JsonNode order = get("/api/v1/orders/" + orderId);
            assertThat(order.get("status").asString()).isEqualTo("failed");
            assertThat(order.get("reason").asString()).contains(CAUSE);
            assertThat(messages(order, "incident")).anySatisfy(m -> assertThat(m).startsWith("Incident retried by "));
            assertThat(actions(incidentOf(orderId))).containsExactly("raised", "retried", "failed_again");
        });
        assertThat(incidents().valueStream().filter(i -> i.get("orderId").asString().equals(orderId)))
                .as("one incident per order, opened again rather than listed twice").hasSize(1);

        // a dismissal with a note closes it; the order stays failed and its timeline names who and why
        JsonNode dismissed = post("/api/v1/incidents/" + id + "/dismiss", Map.of("note", "refunded by hand"), 200);
        assertThat(dismissed.get("status").asString()).isEqualTo("dismissed");
        JsonNode last = dismissed.get("history").get(dismissed.get("history").size() - 1);
        assertThat(last.get("action").asString()).isEqualTo("dismissed");
        assertThat(last.get("note").asString()).isEqualTo("refunded by hand");
        await().atMost(ORDINARY).untilAsserted(() -> {
            assertThat(incidentOf(orderId).get("status").asString()).isEqualTo("dismissed");
            JsonNode order = get("/api/v1/orders/" + orderId);
            assertThat(order.get("status").asString()).isEqualTo("failed");
            assertThat(messages(order, "incident")).anySatisfy(m -> assertThat(m)
                    .startsWith("Incident dismissed by ").endsWith(": refunded by hand"));
        });

        // what no longer applies is refused, and changes nothing
        JsonNode again = post("/api/v1/incidents/" + id + "/dismiss", Map.of("note", "twice"), 409);
        assertThat(again.get("error").asString()).isEqualTo("Incident " + id + " is already dismissed.");
        JsonNode late = post("/api/v1/incidents/" + id + "/retry", null, 409);
        assertThat(late.get("error").asString()).isEqualTo("Incident " + id + " is already dismissed.");
        assertThat(actions(incidentOf(orderId))).containsExactly("raised", "retried", "failed_again", "dismissed");
        assertThat(get("/api/v1/orders/" + orderId).get("status").asString()).isEqualTo("failed");
    }

    @Test
    void a_dismissal_needs_a_note() {
        String orderId = waitingB2bOrder();
        poison(orderId);
        String id = await().atMost(ORDINARY).until(() -> incidentOf(orderId), i -> i != null).get("id").asString();

        post("/api/v1/incidents/" + id + "/dismiss", Map.of("note", "  "), 400);
        post("/api/v1/incidents/" + id + "/dismiss", Map.of(), 400);

        assertThat(incidentOf(orderId).get("status").asString()).isEqualTo("open");
    }

    @Test
    void an_unknown_incident_is_not_found() {
        String orderId = waitingB2bOrder();
        String unknown = orderId + ":1";

        JsonNode retry = post("/api/v1/incidents/" + unknown + "/retry", null, 404);
        assertThat(retry.get("error").asString()).isEqualTo("Incident " + unknown + " not found");
        JsonNode dismiss = post("/api/v1/incidents/" + unknown + "/dismiss", Map.of("note", "nothing"), 404);
        assertThat(dismiss.get("error").asString()).isEqualTo("Incident " + unknown + " not found");
        post("/api/v1/incidents/no-such-incident/retry", null, 404);
        assertThat(get("/api/v1/orders/" + orderId).get("status").asString()).isEqualTo("waiting");
    }

    // ---- helpers ----------------------------------------------------------------------------------------------------

    /** A run report the order's agent cannot apply: a node detail that names no node. */
    private static RecordMetadata poison(String orderId) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), new StringSerializer(), new StringSerializer())) {
            return producer.send(new ProducerRecord<>(Topics.RUN_REPORTS.name(), orderId, Json.write(Map.of(
                    "type", "node_detail", "orderId", orderId, "instanceId", orderId + ".1")))).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String waitingB2bOrder() {
        String orderId = post("/api/v1/orders", Map.of("flowId", "b2b_order", "input", Map.of(
                "type", "b2b_order", "customerId", "cus_incidents", "currency", "EUR",
                "lines", List.of(Map.of("sku", "WIDGET-1", "qty", 1, "unitPrice", 20)),
                "meta", Map.of("shipTo", "5 Harbour Road, Dublin"))), 201).get("orderId").asString();
        await().atMost(ORDINARY).until(() -> get("/api/v1/orders/" + orderId).get("status").asString()
                .equals("waiting"));
        return orderId;
    }

    private static JsonNode incidents() {
        return get("/api/v1/incidents").get("incidents");
    }

    private static JsonNode incidentOf(String orderId) {
        return incidents().valueStream().filter(i -> i.get("orderId").asString().equals(orderId)).findFirst()
                .orElse(null);
    }

    private static List<String> actions(JsonNode incident) {
        return incident.get("history").valueStream().map(step -> step.get("action").asString()).toList();
    }

    private static List<String> messages(JsonNode order, String kind) {
        return order.get("timeline").valueStream().filter(t -> t.get("kind").asString().equals(kind))
                .map(t -> t.get("message").asString()).toList();
    }

    private static JsonNode post(String path, Object body, int status) {
        var request = http.post().uri(path).contentType(MediaType.APPLICATION_JSON);
        byte[] answer = (body == null ? request : request.bodyValue(body)).exchange().expectStatus().isEqualTo(status)
                .expectBody().returnResult().getResponseBody();
        return answer == null || answer.length == 0 ? Json.object() : Json.MAPPER.readTree(answer);
    }

    private static JsonNode get(String path) {
        return Json.MAPPER.readTree(http.get().uri(path).exchange().expectStatus().isOk()
                .expectBody().returnResult().getResponseBody());
    }
}
