package io.orderflow.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.gateway.testing.GatewayDeployment;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * {@code READ_RATE_LIMIT} per caller: here 60 reads a minute, so thirty at once and then one a second; the next
 * gets 429 with {@code Retry-After}, and another caller is not affected.
 */
class ReadRateLimitTest {

    private static final String PASSWORD = "reads-test-password";
    private static GatewayDeployment deployment;
    private static WebTestClient http;

    @BeforeAll
    static void start() {
        deployment = new GatewayDeployment(PASSWORD, "--orderflow.limits.reads-per-minute=60");
        http = deployment.startInstance();
    }

    @AfterAll
    static void stop() {
        deployment.close();
    }

    @Test
    void a_caller_repeating_a_search_gets_429_with_retry_after_and_another_caller_does_not() {
        String viewer = token("looping-viewer");
        String other = token("other-viewer");
        for (int i = 0; i < 30; i++) {
            search(viewer).expectStatus().isOk();
        }

        search(viewer).expectStatus().isEqualTo(429)
                .expectHeader().valueEquals(HttpHeaders.RETRY_AFTER, "1")
                .expectBody().jsonPath("$.error").isEqualTo("Too many reads; retry after the time in Retry-After");
        search(other).expectStatus().isOk();

        deployment.clock.advance(Duration.ofSeconds(1));
        search(viewer).expectStatus().isOk();
        search(viewer).expectStatus().isEqualTo(429);
    }

    @Test
    void the_openapi_document_and_health_are_not_counted_as_reads() {
        String viewer = token("document-reader");
        for (int i = 0; i < 30; i++) {
            search(viewer).expectStatus().isOk();
        }
        http.get().uri("/api/v1/openapi.json").header(HttpHeaders.AUTHORIZATION, "Bearer " + viewer).exchange()
                .expectStatus().isOk();
        http.get().uri("/health").header(HttpHeaders.AUTHORIZATION, "Bearer " + viewer).exchange()
                .expectStatus().isOk();
        assertThat(search(viewer).expectBody().returnResult().getStatus().value()).isEqualTo(429);
    }

    private static WebTestClient.ResponseSpec search(String token) {
        return http.get().uri("/api/v1/orders?q=zzz").header(HttpHeaders.AUTHORIZATION, "Bearer " + token).exchange();
    }

    private static String token(String name) {
        return GatewayDeployment.json(GatewayDeployment.post(http, "/api/v1/team/tokens", PASSWORD,
                "{\"name\": \"" + name + "\", \"role\": \"viewer\"}").expectStatus().isCreated()).get("value")
                .asString();
    }
}
