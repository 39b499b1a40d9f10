package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.embedded.EmbeddedKafkaBroker;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.json.Json;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * Readiness tells the truth about the whole standalone system when its Kafka cluster goes away: the broker (in this
 * JVM, outside the system) stops, the gateway's {@code /actuator/health/readiness} answers 503 naming the
 * {@code kafka} check of the gateway and of each service behind it, an operator's {@code GET /health} and
 * {@code GET /api/v1/system} say {@code degraded}, and an anonymous {@code GET /health} keeps the contract's body.
 * The broker comes back on the same port and data: readiness is UP again and a new order completes.
 */
@Tag("fault") // the long fault and load runs: ./mvnw -B verify -Pfaults
class BrokerOutageReadinessEndToEndTest {

    private static final Map<String, Object> CONTRACT = Map.of("ok", true, "service", "gateway");

    @Test
    void readiness_goes_down_while_the_broker_is_unreachable_and_comes_back_with_it() throws Exception {
        Path dir = TestKafka.uniqueStateDir("broker-outage");
        int kafkaPort = freePort();
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dir.resolve("kafka"), kafkaPort);
        try (StandaloneSystem system = StandaloneSystem.start(new StandaloneSettings(0, dir.resolve("services"),
                Optional.of(broker.bootstrapServers()), 0))) {
            WebTestClient anonymous = SharedStandalone.client(system);
            String token = json(anonymous.post().uri("/api/v1/team/tokens").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("name", "readiness-probe", "role", "operator")).exchange()
                    .expectStatus().isCreated()).get("value").asString();
            WebTestClient operator = anonymous.mutate()
                    .defaultHeader(HttpHeaders.AUTHORIZATION, "Bearer " + token).build();
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                anonymous.get().uri("/actuator/health/readiness").exchange().expectStatus().isOk();
                assertThat(json(operator.get().uri("/health").exchange().expectStatus().isOk())
                        .get("status").asString()).isEqualTo("ok");
            });

            broker.close();

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                JsonNode readiness = json(anonymous.get().uri("/actuator/health/readiness").exchange()
                        .expectStatus().isEqualTo(503));
                assertThat(readiness.get("status").asString()).isEqualTo("DOWN");
            });
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                JsonNode health = json(operator.get().uri("/health").exchange().expectStatus().isOk());
                assertThat(health.get("ok").asBoolean()).isTrue();
                assertThat(health.get("status").asString()).isEqualTo("degraded");
                assertThat(health.at("/readiness/components/kafka/status").asString()).isEqualTo("DOWN");
                assertThat(health.at("/readiness/components/services/components/order-processor/details/kafka")
                        .asString()).as("%s", health).isEqualTo("DOWN");
            });
            assertThat(Json.MAPPER.convertValue(json(anonymous.get().uri("/health").exchange().expectStatus()
                    .isOk()), Map.class)).as("anonymous callers get the contract's body").isEqualTo(CONTRACT);
            JsonNode degraded = json(operator.get().uri("/api/v1/system").exchange().expectStatus().isOk());
            assertThat(degraded.get("status").asString()).isEqualTo("degraded");
            assertThat(degraded.at("/services/0/parts/kafka").asString()).isEqualTo("DOWN");

            broker = EmbeddedKafkaBroker.start(dir.resolve("kafka"), kafkaPort);

            await().atMost(Duration.ofSeconds(120)).untilAsserted(() -> {
                anonymous.get().uri("/actuator/health/readiness").exchange().expectStatus().isOk();
                assertThat(json(operator.get().uri("/health").exchange().expectStatus().isOk())
                        .get("status").asString()).isEqualTo("ok");
            });
            String order = json(operator.post().uri("/api/v1/orders").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("flowId", "storefront_order", "input", Map.of("type", "storefront_order",
                            "customerId", "cus_after_outage", "currency", "USD",
                            "lines", List.of(Map.of("sku", "MUG", "qty", 1, "unitPrice", 9.5)),
                            "meta", Map.of("shipTo", "1 Main Street, Springfield"))))
                    .exchange().expectStatus().isCreated()).get("orderId").asString();
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(json(operator.get()
                    .uri("/api/v1/orders/" + order).exchange().expectStatus().isOk()).get("status").asString())
                    .isEqualTo("completed"));
        } finally {
            broker.close();
        }
    }

    private static JsonNode json(WebTestClient.ResponseSpec response) {
        return Json.MAPPER.readTree(response.expectBody().returnResult().getResponseBody());
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
