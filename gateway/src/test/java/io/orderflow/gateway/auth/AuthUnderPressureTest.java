package io.orderflow.gateway.auth;

import static io.orderflow.gateway.auth.AuthMatrixTest.bearer;
import static io.orderflow.gateway.auth.AuthMatrixTest.cookie;
import static io.orderflow.gateway.testing.GatewayDeployment.json;
import static io.orderflow.gateway.testing.GatewayDeployment.post;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.gateway.testing.GatewayDeployment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * Authentication and the team under hostile or simultaneous requests, as a client sees them: guesses sent all at
 * once stop at the limit, two creations of one token name give one token and one 409, a body over the limit is 413
 * and changes nothing, and sessions that ended do not pile up in the gateway's memory.
 */
class AuthUnderPressureTest {

    private static final String PASSWORD = "pressure-shared-password";

    private static GatewayDeployment deployment;
    private static WebTestClient http;

    @BeforeAll
    static void deployment() {
        // The connection comes from 127.0.0.1, a trusted proxy here, so X-Forwarded-For names each test's client.
        deployment = new GatewayDeployment(PASSWORD, "--orderflow.auth.trusted-proxies=127.0.0.1");
        http = deployment.startInstance();
    }

    @AfterAll
    static void stop() {
        deployment.close();
    }

    @Test
    void wrong_sign_ins_sent_all_at_once_from_one_address_stop_at_the_limit() throws Exception {
        int attempts = 3 * GuessLimiter.LIMIT;
        List<Integer> statuses = all(attempts, () -> http.post().uri("/api/v1/auth/sign-in")
                .header("X-Forwarded-For", "203.0.113.41").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"password\": \"not-the-password\"}").exchange().returnResult(String.class).getStatus()
                .value());

        assertThat(statuses).filteredOn(status -> status == 401).hasSize(GuessLimiter.LIMIT);
        assertThat(statuses).filteredOn(status -> status == 429).hasSize(attempts - GuessLimiter.LIMIT);
        signIn("203.0.113.41").expectStatus().isEqualTo(429); // even the right password, while over the limit
    }

    @Test
    void two_creations_of_one_token_name_at_once_give_one_token_and_a_409() throws Exception {
        int creations = 6;
        List<EntityExchangeResult<String>> answers = all(creations, () -> post(http, "/api/v1/team/tokens", PASSWORD,
                "{\"name\": \"deploy-bot\", \"role\": \"viewer\"}").expectBody(String.class).returnResult());

        assertThat(answers).filteredOn(a -> a.getStatus().value() == 201).hasSize(1);
        assertThat(answers).filteredOn(a -> a.getStatus().value() == 409).hasSize(creations - 1)
                .allSatisfy(a -> assertThat(a.getResponseBody())
                        .isEqualTo("{\"error\":\"A token named deploy-bot already exists\"}"));
        assertThat(tokens()).filteredOn(t -> t.get("name").asString().equals("deploy-bot")).hasSize(1);
        String value = tokenValue(answers.stream().filter(a -> a.getStatus().value() == 201).findFirst().orElseThrow());
        http.get().uri("/api/v1/flows").headers(bearer(value)).exchange().expectStatus().isOk();
    }

    @Test
    void a_body_over_the_limit_is_413_in_the_api_error_shape_and_changes_nothing() {
        int before = tokens().size();
        String huge = "{\"name\": \"" + "n".repeat(600 * 1024) + "\", \"role\": \"viewer\"}";

        post(http, "/api/v1/team/tokens", PASSWORD, huge).expectStatus().isEqualTo(413)
                .expectBody().json("{\"error\": \"Request body is too large\"}", true);
        post(http, "/api/v1/team/people", PASSWORD, "{\"email\": \"big@example.com\", \"name\": \""
                + "n".repeat(600 * 1024) + "\", \"role\": \"viewer\"}").expectStatus().isEqualTo(413)
                .expectBody().json("{\"error\": \"Request body is too large\"}", true);
        http.post().uri("/api/v1/auth/sign-in").header("X-Forwarded-For", "203.0.113.42")
                .contentType(MediaType.APPLICATION_JSON).bodyValue("{\"password\": \"" + "p".repeat(600 * 1024) + "\"}")
                .exchange().expectStatus().isEqualTo(413);

        assertThat(tokens()).hasSize(before);
        assertThat(json(http.get().uri("/api/v1/team/people").headers(bearer(PASSWORD)).exchange()).get("people")
                .valueStream().map(p -> p.get("email").asString())).doesNotContain("big@example.com");
    }

    @Test
    void sessions_that_expired_are_dropped_from_memory_and_the_topic() {
        PrincipalDirectory directory = deployment.bean(0, PrincipalDirectory.class);
        List<String> cookies = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            cookies.add(sessionCookie("203.0.113.43"));
        }
        await().atMost(Duration.ofSeconds(10)).until(directory::sessionCount, count -> count >= 25);
        me(cookies.getFirst()).expectStatus().isOk();

        deployment.clock.advance(Sessions.SHARED_PASSWORD_TTL.plus(PrincipalDirectory.SESSION_SWEEP));
        String fresh = sessionCookie("203.0.113.44");

        await().atMost(Duration.ofSeconds(10)).alias("expired sessions leave the view")
                .until(directory::sessionCount, count -> count == 1);
        me(cookies.getFirst()).expectStatus().isUnauthorized();
        me(fresh).expectStatus().isOk();
        // a gateway started now reads the tombstones, not the 25 sessions
        deployment.startInstance();
        PrincipalDirectory second = deployment.bean(1, PrincipalDirectory.class);
        await().atMost(Duration.ofSeconds(10)).until(second::sessionCount, count -> count == 1);
    }

    // ---- helpers --------------------------------------------------------------------------------------------------

    /** Runs {@code count} calls of {@code call} at once on threads of their own; their answers. */
    private static <T> List<T> all(int count, Callable<T> call) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(count);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<T>> running = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                running.add(threads.submit(() -> {
                    start.await();
                    return call.call();
                }));
            }
            start.countDown();
            List<T> answers = new ArrayList<>();
            for (Future<T> future : running) {
                answers.add(future.get(60, TimeUnit.SECONDS));
            }
            return answers;
        } finally {
            threads.shutdownNow();
        }
    }

    private static WebTestClient.ResponseSpec signIn(String client) {
        return http.post().uri("/api/v1/auth/sign-in").header("X-Forwarded-For", client)
                .contentType(MediaType.APPLICATION_JSON).bodyValue("{\"password\": \"" + PASSWORD + "\"}").exchange();
    }

    private static String sessionCookie(String client) {
        return signIn(client).expectStatus().isOk().returnResult(String.class).getResponseCookies()
                .getFirst(SessionCookies.NAME).getValue();
    }

    private static WebTestClient.ResponseSpec me(String session) {
        return http.get().uri("/api/v1/auth/me").headers(cookie(session)).exchange();
    }

    private static List<JsonNode> tokens() {
        JsonNode list = json(http.get().uri("/api/v1/team/tokens").headers(bearer(PASSWORD)).exchange()
                .expectStatus().isOk()).get("tokens");
        return StreamSupport.stream(list.spliterator(), false).toList();
    }

    private static String tokenValue(EntityExchangeResult<String> created) {
        return io.orderflow.schemas.json.Json.MAPPER.readTree(created.getResponseBody()).get("value").asString();
    }
}
