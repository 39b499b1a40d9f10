package io.orderflow.gateway.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.gateway.testing.GatewayDeployment;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.availability.ApplicationAvailabilityBean;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.http.HttpHeaders;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * {@code GET /health} answers anyone the contract's body and an operator whether the gateway is ready: {@code ok}
 * with the readiness parts while they are UP, {@code degraded} while one is not (here the gateway stops accepting
 * traffic); {@code /actuator/health/readiness} answers 503 then, which a load balancer acts on.
 */
class HealthForOperatorsTest {

    private static final String PASSWORD = "health-test-password";
    private static GatewayDeployment deployment;
    private static WebTestClient http;

    @BeforeAll
    static void start() {
        deployment = new GatewayDeployment(PASSWORD);
        http = deployment.startInstance();
    }

    @AfterAll
    static void stop() {
        deployment.close();
    }

    @Test
    void anyone_gets_the_contract_body_and_an_operator_gets_readiness_too() {
        JsonNode anonymous = GatewayDeployment.json(http.get().uri("/health").exchange().expectStatus().isOk());
        assertThat(fieldNames(anonymous)).containsExactlyInAnyOrder("ok", "service");
        assertThat(anonymous.get("ok").asBoolean()).isTrue();
        assertThat(anonymous.get("service").asString()).isEqualTo("gateway");

        JsonNode wrongPassword = GatewayDeployment.json(http.get().uri("/health")
                .header(HttpHeaders.AUTHORIZATION, "Bearer not-the-password").exchange().expectStatus().isOk());
        assertThat(fieldNames(wrongPassword)).containsExactlyInAnyOrder("ok", "service");

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode operator = GatewayDeployment.json(http.get().uri("/health")
                    .header(HttpHeaders.AUTHORIZATION, "Bearer " + PASSWORD).exchange().expectStatus().isOk());
            assertThat(operator.get("ok").asBoolean()).isTrue();
            assertThat(operator.get("status").asString()).isEqualTo("ok");
            assertThat(operator.at("/readiness/components/kafka/status").asString()).isEqualTo("UP");
        });
    }

    @Test
    void an_operator_sees_degraded_while_a_part_is_not_ready() {
        ApplicationAvailabilityBean availability = deployment.bean(0, ApplicationAvailabilityBean.class);
        availability.onApplicationEvent(new AvailabilityChangeEvent<>(this, ReadinessState.REFUSING_TRAFFIC));
        try {
            http.get().uri("/actuator/health/readiness").exchange().expectStatus().isEqualTo(503);
            JsonNode operator = GatewayDeployment.json(http.get().uri("/health")
                    .header(HttpHeaders.AUTHORIZATION, "Bearer " + PASSWORD).exchange().expectStatus().isOk());
            assertThat(operator.get("status").asString()).isEqualTo("degraded");
            assertThat(operator.at("/readiness/components/readinessState/status").asString())
                    .isEqualTo("OUT_OF_SERVICE");
            JsonNode anonymous = GatewayDeployment.json(http.get().uri("/health").exchange().expectStatus().isOk());
            assertThat(fieldNames(anonymous)).containsExactlyInAnyOrder("ok", "service");
        } finally {
            availability.onApplicationEvent(new AvailabilityChangeEvent<>(this, ReadinessState.ACCEPTING_TRAFFIC));
        }
    }

    private static List<String> fieldNames(JsonNode node) {
        return node.propertyNames().stream().toList();
    }
}
