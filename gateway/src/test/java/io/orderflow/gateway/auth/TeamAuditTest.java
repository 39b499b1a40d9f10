package io.orderflow.gateway.auth;

import static io.orderflow.gateway.testing.GatewayDeployment.json;
import static io.orderflow.gateway.testing.GatewayDeployment.post;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.gateway.testing.GatewayDeployment;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.topics.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * The team's audit log and its tokens on a real broker: every change to the team is recorded with who made it,
 * served newest first a page at a time and kept in the {@code principals} topic (a second gateway instance reads the
 * same log); token names are unique in the deployment, a token may expire, and its last use is shown, noted at most
 * once a minute.
 */
class TeamAuditTest {

    private static final String PASSWORD = "audit-shared-password";

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
    void everyChangeToTheTeamIsRecordedWithWhoMadeItNewestFirst() {
        String email = unique("bob") + "@example.com";
        String bob = json(post(http, "/api/v1/team/people", PASSWORD, """
                {"email": "%s", "name": "Bob", "role": "viewer", "password": "correct horse battery"}"""
                .formatted(email)).expectStatus().isCreated()).get("person").get("id").asString();
        // Bob, made an operator, makes the remaining changes himself with his session
        patch(bob, "{\"role\": \"operator\"}", bearer(PASSWORD)).expectStatus().isOk();
        String session = AuthMatrixTest.signIn(http, """
                {"email": "%s", "password": "correct horse battery"}""".formatted(email));
        String carol = json(http.post().uri("/api/v1/team/people").headers(AuthMatrixTest.cookie(session))
                .contentType(MediaType.APPLICATION_JSON).bodyValue("""
                        {"email": "%s@example.com", "name": "Carol", "role": "approver"}""".formatted(unique("carol")))
                .exchange().expectStatus().isCreated()).get("person").get("id").asString();
        patch(carol, "{\"disabled\": true}", AuthMatrixTest.cookie(session)).expectStatus().isOk();
        patch(carol, "{\"disabled\": false}", AuthMatrixTest.cookie(session)).expectStatus().isOk();
        http.post().uri("/api/v1/team/people/" + carol + "/reset-password").headers(AuthMatrixTest.cookie(session))
                .exchange().expectStatus().isOk();
        String tokenName = unique("ci");
        String token = json(http.post().uri("/api/v1/team/tokens").headers(AuthMatrixTest.cookie(session))
                .contentType(MediaType.APPLICATION_JSON).bodyValue("{\"name\": \"" + tokenName
                        + "\", \"role\": \"approver\"}").exchange().expectStatus().isCreated())
                .get("token").get("id").asString();
        http.delete().uri("/api/v1/team/tokens/" + token).headers(AuthMatrixTest.cookie(session)).exchange()
                .expectStatus().isOk();
        // a PATCH that changes nothing records nothing
        patch(carol, "{\"role\": \"approver\"}", AuthMatrixTest.cookie(session)).expectStatus().isOk();

        List<JsonNode> mine = entries(http).stream().filter(e -> List.of(bob, carol, token)
                .contains(e.get("targetId").asString())).toList();

        assertThat(mine).extracting(e -> e.get("action").asString()).containsExactly(
                "token.revoked", "token.created", "person.password_reset", "person.enabled", "person.disabled",
                "person.added", "person.role_changed", "person.added");
        assertThat(mine).extracting(e -> e.get("actor").asString()).containsExactly(
                email, email, email, email, email, email, "password", "password");
        assertThat(mine.get(6).get("summary").asString())
                .isEqualTo("Role of " + email + ": viewer → operator");
        assertThat(mine.get(0).get("target").asString()).isEqualTo(tokenName);
        assertThat(mine.get(1).get("summary").asString()).isEqualTo("Created token " + tokenName + " (approver)");
        assertThat(mine).allSatisfy(e -> assertThat(e.get("at").asLong()).isPositive());
        assertThat(Json.write(Json.MAPPER.valueToTree(mine))).as("never a secret")
                .doesNotContain("correct horse battery").doesNotContain("owf_");

        // kept in the topic: another gateway instance, started now, serves the same log
        WebTestClient second = deployment.startInstance();
        assertThat(entries(second)).extracting(e -> e.get("id").asString())
                .containsAll(mine.stream().map(e -> e.get("id").asString()).toList());
    }

    @Test
    void theLogIsServedAPageAtATimeWithACursor() {
        for (int i = 0; i < 5; i++) {
            post(http, "/api/v1/team/tokens", PASSWORD, "{\"name\": \"" + unique("page") + "\", \"role\": \"viewer\"}")
                    .expectStatus().isCreated();
        }
        List<String> all = entries(http).stream().map(e -> e.get("id").asString()).toList();

        List<String> paged = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            JsonNode page = json(get("/api/v1/team/audit?limit=2" + (cursor == null ? "" : "&cursor=" + cursor))
                    .expectStatus().isOk());
            assertThat(page.get("entries").size()).isBetween(1, 2);
            page.get("entries").forEach(e -> paged.add(e.get("id").asString()));
            cursor = page.has("next") ? page.get("next").asString() : null;
            pages++;
        } while (cursor != null);

        assertThat(paged).isEqualTo(all);
        assertThat(pages).isEqualTo((all.size() + 1) / 2);
        assertThat(all).isSortedAccordingTo((a, b) -> b.compareTo(a));
    }

    @Test
    void aCursorOrLimitTheListDidNotWriteIsRefused() {
        assertThat(json(get("/api/v1/team/audit?cursor=bm90LWFuLWlk").expectStatus().isBadRequest())
                .get("error").asString())
                .isEqualTo("The cursor is not valid for this list; start again from the first page");
        assertThat(json(get("/api/v1/team/audit?limit=0").expectStatus().isBadRequest()).get("error").asString())
                .isEqualTo("limit must be a whole number from 1 to 200");
        get("/api/v1/team/audit?limit=201").expectStatus().isBadRequest();
    }

    @Test
    void aViewerOrApproverCannotReadTheLog() {
        String viewer = newToken(unique("viewer"), "viewer", null);
        http.get().uri("/api/v1/team/audit").headers(bearer(viewer)).exchange().expectStatus().isForbidden()
                .expectBody().jsonPath("$.error").isEqualTo("This needs the Operator role.");
    }

    // ---- tokens --------------------------------------------------------------------------------------------------

    @Test
    void aTokenNameIsUniqueInTheDeploymentRevokedTokensIncluded() {
        String name = unique("deploy");
        JsonNode created = json(post(http, "/api/v1/team/tokens", PASSWORD,
                "{\"name\": \"" + name + "\", \"role\": \"operator\"}").expectStatus().isCreated());

        JsonNode duplicate = json(post(http, "/api/v1/team/tokens", PASSWORD,
                "{\"name\": \"" + name + "\", \"role\": \"viewer\"}").expectStatus().isEqualTo(409));
        assertThat(duplicate).isEqualTo(Json.object().put("error", "A token named " + name + " already exists"));

        http.delete().uri("/api/v1/team/tokens/" + created.get("token").get("id").asString())
                .headers(bearer(PASSWORD)).exchange().expectStatus().isOk();
        post(http, "/api/v1/team/tokens", PASSWORD, "{\"name\": \"" + name + "\", \"role\": \"viewer\"}")
                .expectStatus().isEqualTo(409);
    }

    @Test
    void aTokenWithAnExpiryIsRefusedFromThenOn() {
        long expiresAt = deployment.clock.millis() + Duration.ofHours(1).toMillis();
        String name = unique("expiring");
        String value = newToken(name, "viewer", expiresAt);
        assertThat(tokenNamed(name).get("expiresAt").asLong()).isEqualTo(expiresAt);
        http.get().uri("/api/v1/flows").headers(bearer(value)).exchange().expectStatus().isOk();

        deployment.clock.advance(Duration.ofHours(1));

        http.get().uri("/api/v1/flows").headers(bearer(value)).exchange().expectStatus().isUnauthorized()
                .expectBody().jsonPath("$.error").isEqualTo("This API token has expired");
    }

    @Test
    void anExpiryThatHasPassedIsRefusedAtCreation() {
        JsonNode refused = json(post(http, "/api/v1/team/tokens", PASSWORD, "{\"name\": \"" + unique("past")
                + "\", \"role\": \"viewer\", \"expiresAt\": " + (deployment.clock.millis() - 1) + "}")
                .expectStatus().isBadRequest());
        assertThat(refused.get("error").asString()).isEqualTo("expiresAt must be in the future");
        post(http, "/api/v1/team/tokens", PASSWORD, "{\"name\": \"" + unique("text")
                + "\", \"role\": \"viewer\", \"expiresAt\": \"tomorrow\"}").expectStatus().isBadRequest();
    }

    @Test
    void theLastUseIsShownAndNotedAtMostOnceAMinute() {
        String name = unique("used");
        String value = newToken(name, "viewer", null);
        assertThat(tokenNamed(name).get("lastUsedAt").isNull()).as("never used").isTrue();
        String id = tokenNamed(name).get("id").asString();

        long first = deployment.clock.millis();
        for (int i = 0; i < 10; i++) {
            http.get().uri("/api/v1/flows").headers(bearer(value)).exchange().expectStatus().isOk();
        }
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(tokenNamed(name).get("lastUsedAt").asLong()).isEqualTo(first));
        deployment.clock.advance(Duration.ofSeconds(30));
        for (int i = 0; i < 10; i++) {
            http.get().uri("/api/v1/flows").headers(bearer(value)).exchange().expectStatus().isOk();
        }
        deployment.clock.advance(Duration.ofSeconds(31));
        long second = deployment.clock.millis();
        http.get().uri("/api/v1/flows").headers(bearer(value)).exchange().expectStatus().isOk();
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(tokenNamed(name).get("lastUsedAt").asLong()).isEqualTo(second));

        assertThat(usesWritten(id)).as("21 requests, two writes: one per minute").isEqualTo(2);
    }

    // ---- helpers -------------------------------------------------------------------------------------------------

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static java.util.function.Consumer<HttpHeaders> bearer(String value) {
        return AuthMatrixTest.bearer(value);
    }

    private static WebTestClient.ResponseSpec get(String path) {
        return http.get().uri(path).headers(bearer(PASSWORD)).exchange();
    }

    private static WebTestClient.ResponseSpec patch(String personId, String body,
                                                    java.util.function.Consumer<HttpHeaders> credentials) {
        return http.patch().uri("/api/v1/team/people/" + personId).headers(credentials)
                .contentType(MediaType.APPLICATION_JSON).bodyValue(body).exchange();
    }

    /** The whole log, newest first, page by page. */
    private static List<JsonNode> entries(WebTestClient client) {
        List<JsonNode> all = new ArrayList<>();
        String cursor = null;
        do {
            JsonNode page = json(client.get().uri("/api/v1/team/audit?limit=200"
                    + (cursor == null ? "" : "&cursor=" + cursor)).headers(bearer(PASSWORD)).exchange()
                    .expectStatus().isOk());
            page.get("entries").forEach(all::add);
            cursor = page.has("next") ? page.get("next").asString() : null;
        } while (cursor != null);
        return all;
    }

    private static String newToken(String name, String role, Long expiresAt) {
        String body = "{\"name\": \"" + name + "\", \"role\": \"" + role + "\""
                + (expiresAt == null ? "" : ", \"expiresAt\": " + expiresAt) + "}";
        return json(post(http, "/api/v1/team/tokens", PASSWORD, body).expectStatus().isCreated())
                .get("value").asString();
    }

    private static JsonNode tokenNamed(String name) {
        JsonNode tokens = json(get("/api/v1/team/tokens").expectStatus().isOk()).get("tokens");
        for (JsonNode token : tokens) {
            if (token.get("name").asString().equals(name)) {
                return token;
            }
        }
        throw new AssertionError("No token named " + name);
    }

    /** How many last-use records of the token the principals topic holds. */
    private static int usesWritten(String tokenId) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, deployment.bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "audit-test-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(Topics.PRINCIPALS.name()));
            Map<String, Integer> seen = new java.util.HashMap<>();
            long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (System.nanoTime() < until) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    if (record.key().equals("used:" + tokenId)) {
                        seen.merge(record.key(), 1, Integer::sum);
                    }
                }
                var end = consumer.endOffsets(consumer.assignment());
                if (!end.isEmpty() && end.entrySet().stream()
                        .allMatch(e -> consumer.position(e.getKey()) >= e.getValue())) {
                    break;
                }
            }
            return seen.getOrDefault("used:" + tokenId, 0);
        }
    }
}
