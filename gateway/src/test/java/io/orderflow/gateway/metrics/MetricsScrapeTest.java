package io.orderflow.gateway.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.gateway.testing.GatewayDeployment;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The metrics scrape on the gateway's port is for operators and for Prometheus holding {@code INTERNAL_TOKEN}: it
 * shows incidents, lag and orders in flight, which a stranger or a viewer does not see.
 */
class MetricsScrapeTest {

    private static final String PASSWORD = "metrics-test-password";
    private static final String INTERNAL_TOKEN = "metrics-test-internal-token-0123456789";
    private static GatewayDeployment deployment;
    private static WebTestClient http;

    @BeforeAll
    static void start() {
        deployment = new GatewayDeployment(PASSWORD, "--orderflow.internal.token=" + INTERNAL_TOKEN);
        http = deployment.startInstance();
    }

    @AfterAll
    static void stop() {
        deployment.close();
    }

    @Test
    void a_stranger_gets_401_and_the_scrape_shows_nothing() {
        String body = http.get().uri("/actuator/prometheus").exchange().expectStatus().isUnauthorized()
                .expectBody(String.class).returnResult().getResponseBody();

        assertThat(body).doesNotContain("jvm_").doesNotContain("orderflow_");
    }

    @Test
    void prometheus_scrapes_with_the_internal_token_as_a_bearer_or_in_its_header() {
        assertThat(scrape(h -> h.set(HttpHeaders.AUTHORIZATION, "Bearer " + INTERNAL_TOKEN)))
                .contains("jvm_memory_used_bytes");
        assertThat(scrape(h -> h.set("X-Internal-Token", INTERNAL_TOKEN))).contains("jvm_memory_used_bytes");
    }

    @Test
    void an_operator_scrapes_and_a_wrong_internal_token_gets_401() {
        assertThat(scrape(h -> h.set(HttpHeaders.AUTHORIZATION, "Bearer " + PASSWORD)))
                .contains("jvm_memory_used_bytes");
        http.get().uri("/actuator/prometheus").header("X-Internal-Token", "not-the-token").exchange()
                .expectStatus().isUnauthorized();
    }

    @Test
    void the_internal_token_opens_the_scrape_and_nothing_else() {
        http.get().uri("/api/v1/system").header(HttpHeaders.AUTHORIZATION, "Bearer " + INTERNAL_TOKEN).exchange()
                .expectStatus().isUnauthorized();
        http.get().uri("/api/v1/orders").header("X-Internal-Token", INTERNAL_TOKEN).exchange()
                .expectStatus().isUnauthorized();
    }

    private static String scrape(java.util.function.Consumer<HttpHeaders> credentials) {
        return http.get().uri("/actuator/prometheus").headers(credentials).exchange().expectStatus().isOk()
                .expectBody(String.class).returnResult().getResponseBody();
    }
}
