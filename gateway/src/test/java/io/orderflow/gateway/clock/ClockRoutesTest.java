package io.orderflow.gateway.clock;

import static io.orderflow.gateway.testing.GatewayDeployment.json;
import static io.orderflow.gateway.testing.GatewayDeployment.post;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.orderflow.gateway.testing.GatewayDeployment;
import io.orderflow.schemas.topics.Topics;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * The clock routes of a gateway started with {@code CLOCK_CONTROL=true}, on a real broker: the start-up refusal where
 * people sign in, the changes and their bounds, the audit log, and a second instance that tells the same time. The
 * deployment's real clock is one the test holds still, so every service time below is exact.
 */
class ClockRoutesTest {

    private static final String CONTROL = "--orderflow.clock.control=true";
    private static final String FORCE = "--orderflow.clock.force=true";

    @Test
    void start_up_refuses_clock_control_with_a_shared_password_unless_forced() throws Exception {
        try (GatewayDeployment deployment = new GatewayDeployment("shared-secret", CONTROL)) {
            assertThatThrownBy(deployment::startInstance).rootCause()
                    .isInstanceOf(IllegalStateException.class).hasMessage(ClockControl.REFUSED_PASSWORD)
                    .hasMessageContaining("CLOCK_CONTROL_FORCE=true");
            assertThat(topics(deployment)).as("the refused start created nothing").doesNotContain(Topics.CLOCK.name());

            WebTestClient http = deployment.startInstance(FORCE);
            http.get().uri("/api/v1/clock").exchange().expectStatus().isUnauthorized();
            JsonNode moved = json(post(http, "/api/v1/clock", "shared-secret", "{\"advanceBy\": \"PT2H\"}")
                    .expectStatus().isOk());
            assertThat(moved.get("offset").asString()).isEqualTo("PT2H");
            assertThat(moved.get("changedBy").asString()).isEqualTo("password");

            String viewer = json(post(http, "/api/v1/team/tokens", "shared-secret",
                    "{\"name\": \"clock-viewer\", \"role\": \"viewer\"}").expectStatus().isCreated())
                    .get("value").asString();
            post(http, "/api/v1/clock", viewer, "{\"advanceBy\": \"PT1H\"}").expectStatus().isForbidden()
                    .expectBody().jsonPath("$.error").isEqualTo("This needs the Operator role.");
            JsonNode read = json(http.get().uri("/api/v1/clock")
                    .header(HttpHeaders.AUTHORIZATION, "Bearer " + viewer).exchange().expectStatus().isOk());
            assertThat(read.get("offset").asString()).as("a viewer reads the clock").isEqualTo("PT2H");
        }
    }

    @Test
    void start_up_refuses_clock_control_where_people_are_registered_unless_forced() {
        try (GatewayDeployment deployment = new GatewayDeployment(null)) {
            WebTestClient open = deployment.startInstance();
            post(open, "/api/v1/team/people", null, """
                    {"email": "olga@example.com", "name": "Olga", "role": "operator",
                     "password": "correct horse battery"}""").expectStatus().isCreated();

            assertThatThrownBy(() -> deployment.startInstance(CONTROL)).rootCause()
                    .isInstanceOf(IllegalStateException.class).hasMessage(ClockControl.REFUSED_PEOPLE);
            deployment.startInstance(CONTROL, FORCE);
        }
    }

    @Test
    void advances_pins_and_resets_the_clock_and_the_audit_log_says_who() {
        try (GatewayDeployment deployment = new GatewayDeployment(null, CONTROL)) {
            WebTestClient http = deployment.startInstance();
            Instant real = deployment.clock.instant().truncatedTo(ChronoUnit.MILLIS); // the clock counts milliseconds
            JsonNode initial = json(http.get().uri("/api/v1/clock").exchange().expectStatus().isOk());
            assertThat(initial.get("now").asString()).isEqualTo(real.toString());
            assertThat(initial.get("nowMillis").asLong()).isEqualTo(real.toEpochMilli());
            assertThat(initial.get("offset").asString()).isEqualTo("PT0S");
            assertThat(initial.has("changedBy")).isFalse();

            JsonNode advanced = json(post(http, "/api/v1/clock", null, "{\"advanceBy\": \"P2DT1M\"}")
                    .expectStatus().isOk());
            Instant twoDaysOn = real.plus(Duration.ofDays(2).plusMinutes(1));
            assertThat(advanced.get("now").asString()).isEqualTo(twoDaysOn.toString());
            assertThat(advanced.get("offsetMillis").asLong()).isEqualTo(Duration.ofDays(2).plusMinutes(1).toMillis());
            assertThat(advanced.get("offset").asString()).isEqualTo("PT48H1M");
            assertThat(advanced.get("changedBy").asString()).isEqualTo("open");

            Instant pinAt = twoDaysOn.plus(Duration.ofHours(20));
            JsonNode pinned = json(post(http, "/api/v1/clock", null, "{\"pinAt\": \"" + pinAt + "\"}")
                    .expectStatus().isOk());
            assertThat(pinned.get("now").asString()).isEqualTo(pinAt.toString());

            JsonNode reset = json(http.delete().uri("/api/v1/clock").exchange().expectStatus().isOk());
            assertThat(reset.get("now").asString()).isEqualTo(real.toString());
            assertThat(reset.get("offset").asString()).isEqualTo("PT0S");

            JsonNode audit = json(http.get().uri("/api/v1/team/audit?limit=3").exchange().expectStatus().isOk());
            assertThat(audit.get("entries").valueStream().map(e -> e.get("action").asString()))
                    .containsExactly("clock.reset", "clock.pinned", "clock.advanced");
            assertThat(audit.get("entries").get(2).get("summary").asString())
                    .isEqualTo("Advanced the service clock by PT48H1M to " + twoDaysOn);
            assertThat(audit.get("entries").get(1).get("summary").asString())
                    .isEqualTo("Set the service clock to " + pinAt);
            assertThat(audit.get("entries").valueStream().map(e -> e.get("actor").asString())).containsOnly("open");
        }
    }

    @Test
    void refuses_a_change_out_of_bounds_and_changes_nothing() {
        try (GatewayDeployment deployment = new GatewayDeployment(null, CONTROL)) {
            WebTestClient http = deployment.startInstance();
            post(http, "/api/v1/clock", null, "{\"advanceBy\": \"PT1H\"}").expectStatus().isOk();
            Instant now = deployment.clock.instant().truncatedTo(ChronoUnit.MILLIS).plus(Duration.ofHours(1));

            for (Map.Entry<String, List<String>> refused : Map.of(
                    "{\"advanceBy\": \"P367D\"}", List.of("/advanceBy", "must be at most P366D"),
                    "{\"advanceBy\": \"-PT1H\"}", List.of("/advanceBy", "must be more than zero"),
                    "{\"advanceBy\": \"PT1H\", \"pinAt\": \"" + now + "\"}",
                    List.of("", "Give exactly one of advanceBy and pinAt"),
                    "{\"pinAt\": \"" + now.minusSeconds(1) + "\"}",
                    List.of("/pinAt", "must not be before the current service time, " + now),
                    "{\"pinAt\": \"" + now.plus(Duration.ofDays(366)).plusSeconds(1) + "\"}",
                    List.of("/pinAt", "must be at most P366D after the current service time, " + now)).entrySet()) {
                JsonNode error = json(post(http, "/api/v1/clock", null, refused.getKey()).expectStatus().isBadRequest());
                assertThat(error.get("error").asString()).isEqualTo("Invalid request body");
                assertThat(error.get("issues").get(0).get("path").asString()).as(refused.getKey())
                        .isEqualTo(refused.getValue().get(0));
                assertThat(error.get("issues").get(0).get("message").asString()).as(refused.getKey())
                        .isEqualTo(refused.getValue().get(1));
            }
            JsonNode read = json(http.get().uri("/api/v1/clock").exchange().expectStatus().isOk());
            assertThat(read.get("now").asString()).isEqualTo(now.toString());
        }
    }

    @Test
    void every_gateway_instance_tells_the_same_time_and_a_team_formed_later_stops_the_changes() {
        try (GatewayDeployment deployment = new GatewayDeployment(null, CONTROL)) {
            WebTestClient first = deployment.startInstance();
            WebTestClient second = deployment.startInstance();
            String operator = json(post(first, "/api/v1/team/tokens", null,
                    "{\"name\": \"clock-operator\", \"role\": \"operator\"}").expectStatus().isCreated())
                    .get("value").asString();

            post(first, "/api/v1/clock", null, "{\"advanceBy\": \"PT5H\"}").expectStatus().isOk();
            await().atMost(Duration.ofSeconds(10)).until(() -> json(second.get().uri("/api/v1/clock").exchange())
                    .get("offset").asString().equals("PT5H"));

            // the first person makes the deployment one where people sign in: without CLOCK_CONTROL_FORCE, no more
            // changes (reads go on)
            post(first, "/api/v1/team/people", null, """
                    {"email": "olga@example.com", "name": "Olga", "role": "operator",
                     "password": "correct horse battery"}""").expectStatus().isCreated();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    post(second, "/api/v1/clock", operator, "{\"advanceBy\": \"PT1H\"}").expectStatus().isForbidden()
                            .expectBody().jsonPath("$.error").isEqualTo(ClockControl.REFUSED_NOW));
            second.get().uri("/api/v1/clock").header(HttpHeaders.AUTHORIZATION, "Bearer " + operator).exchange()
                    .expectStatus().isOk().expectBody().jsonPath("$.offset").isEqualTo("PT5H");
        }
    }

    private static java.util.Set<String> topics(GatewayDeployment deployment) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, deployment.bootstrap))) {
            return admin.listTopics().names().get();
        }
    }
}
