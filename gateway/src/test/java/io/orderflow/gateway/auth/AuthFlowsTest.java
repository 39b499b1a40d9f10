package io.orderflow.gateway.auth;

import static io.orderflow.gateway.auth.AuthMatrixTest.bearer;
import static io.orderflow.gateway.auth.AuthMatrixTest.cookie;
import static io.orderflow.gateway.testing.GatewayDeployment.json;
import static io.orderflow.gateway.testing.GatewayDeployment.post;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.gateway.orders.OrderIds;
import io.orderflow.gateway.testing.FakeProcessor.FakeOrder;
import io.orderflow.gateway.testing.GatewayDeployment;
import io.orderflow.schemas.commands.CommandEnvelope;
import io.orderflow.schemas.commands.OrderCommand;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseCookie;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * Authentication as people and scripts meet it, on a deployment with a shared password: the guess limit, sessions
 * that end (sign-out, expiry, reset, disable), a lower role applied at once, who is recorded as the decider, a
 * revocation seen by a second gateway instance, and no secret in any answer or log line.
 */
@ExtendWith(OutputCaptureExtension.class)
class AuthFlowsTest {

    private static final String PASSWORD = "flows-shared-password";
    private static final String PERSON_PASSWORD = "correct horse battery";
    private static final AtomicInteger NAMES = new AtomicInteger();

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

    // ---- rule 5: wrong bearer values ------------------------------------------------------------------------------

    @Test
    void the_21st_wrong_bearer_from_one_address_gets_429_with_retry_after_and_real_tokens_still_work() {
        String client = newAddress();
        String token = createToken("viewer");
        for (int guess = 1; guess <= 20; guess++) {
            flows(client, "guess-" + guess).expectStatus().isUnauthorized();
            flows(client, token).expectStatus().isOk(); // a real token is never counted
        }
        flows(client, "guess-21").expectStatus().isEqualTo(429)
                .expectHeader().valueMatches(HttpHeaders.RETRY_AFTER, "\\d+")
                .expectBody().jsonPath("$.error").isNotEmpty();
        flows(client, PASSWORD).expectStatus().isEqualTo(429); // even the right password, while guessing goes on
        flows(client, token).expectStatus().isOk();
        flows(newAddress(), PASSWORD).expectStatus().isOk(); // another address is not affected

        deployment.clock.advance(Duration.ofMinutes(15)); // the window slides past the guesses
        flows(client, PASSWORD).expectStatus().isOk();
    }

    @Test
    void the_retry_after_counts_down_to_when_the_oldest_guess_leaves_the_window() {
        String client = newAddress();
        flows(client, "first").expectStatus().isUnauthorized();
        deployment.clock.advance(Duration.ofMinutes(5));
        for (int guess = 2; guess <= 20; guess++) {
            flows(client, "guess-" + guess).expectStatus().isUnauthorized();
        }
        String retryAfter = flows(client, "guess-21").expectStatus().isEqualTo(429)
                .returnResult(String.class).getResponseHeaders().getFirst(HttpHeaders.RETRY_AFTER);
        assertThat(Long.parseLong(retryAfter)).isEqualTo(Duration.ofMinutes(10).toSeconds());
    }

    @Test
    void wrong_sign_ins_count_as_guesses_too() {
        String client = newAddress();
        for (int guess = 1; guess <= 20; guess++) {
            signIn(client, null, "guess-" + guess).expectStatus().isUnauthorized()
                    .expectBody().jsonPath("$.error").isEqualTo("Wrong email or password");
        }
        signIn(client, null, PASSWORD).expectStatus().isEqualTo(429).expectHeader().exists(HttpHeaders.RETRY_AFTER);
    }

    // ---- sessions -------------------------------------------------------------------------------------------------

    @Test
    void a_person_signs_in_with_an_http_only_lax_cookie_and_is_who_they_say() {
        String email = addPerson("approver");
        ResponseCookie cookie = signIn(newAddress(), email, PERSON_PASSWORD).expectStatus().isOk()
                .returnResult(String.class).getResponseCookies().getFirst(SessionCookies.NAME);
        assertThat(cookie.isHttpOnly()).isTrue();
        assertThat(cookie.getSameSite()).isEqualTo("Lax");
        assertThat(cookie.isSecure()).isFalse(); // plain http here; https gets Secure
        assertThat(cookie.getMaxAge()).isEqualTo(Duration.ofHours(12));
        me(cookie.getValue()).expectStatus().isOk().expectBody()
                .jsonPath("$.kind").isEqualTo("person").jsonPath("$.role").isEqualTo("approver")
                .jsonPath("$.identity").isEqualTo(email).jsonPath("$.openDeployment").isEqualTo(false);
    }

    @Test
    void the_shared_password_signs_in_for_30_days_as_an_operator() {
        ResponseCookie cookie = signIn(newAddress(), null, PASSWORD).expectStatus().isOk()
                .returnResult(String.class).getResponseCookies().getFirst(SessionCookies.NAME);
        assertThat(cookie.getMaxAge()).isEqualTo(Duration.ofDays(30));
        me(cookie.getValue()).expectBody().jsonPath("$.kind").isEqualTo("password")
                .jsonPath("$.role").isEqualTo("operator");
    }

    @Test
    void a_session_ends_when_it_expires() {
        String session = session(addPerson("viewer"));
        deployment.clock.advance(Duration.ofHours(11));
        me(session).expectStatus().isOk();
        deployment.clock.advance(Duration.ofHours(1));
        me(session).expectStatus().isUnauthorized().expectBody().jsonPath("$.error")
                .isEqualTo("Your sign-in has ended. Reload the page to sign in again.");
    }

    @Test
    void a_session_ends_on_sign_out_and_the_cookie_is_cleared() {
        String session = session(addPerson("viewer"));
        ResponseCookie cleared = http.post().uri("/api/v1/auth/sign-out").headers(cookie(session)).exchange()
                .expectStatus().isOk().returnResult(String.class).getResponseCookies().getFirst(SessionCookies.NAME);
        assertThat(cleared.getMaxAge()).isEqualTo(Duration.ZERO);
        me(session).expectStatus().isUnauthorized();
    }

    @Test
    void a_password_reset_ends_the_persons_sessions_and_only_the_new_password_signs_in() {
        String email = addPerson("approver");
        String session = session(email);
        JsonNode reset = json(post(http, "/api/v1/team/people/" + personId(email) + "/reset-password", PASSWORD, "{}")
                .expectStatus().isOk());
        me(session).expectStatus().isUnauthorized();
        signIn(newAddress(), email, PERSON_PASSWORD).expectStatus().isUnauthorized();
        signIn(newAddress(), email, reset.get("password").asString()).expectStatus().isOk();
    }

    @Test
    void disabling_a_person_ends_their_sessions_and_refuses_their_sign_in() {
        String email = addPerson("operator");
        String session = session(email);
        patchPerson(email, "{\"disabled\": true}").expectStatus().isOk().expectBody()
                .jsonPath("$.disabled").isEqualTo(true);
        me(session).expectStatus().isUnauthorized();
        signIn(newAddress(), email, PERSON_PASSWORD).expectStatus().isUnauthorized();

        patchPerson(email, "{\"disabled\": false}").expectStatus().isOk();
        me(session).expectStatus().isUnauthorized(); // enabling again does not bring old sessions back
        signIn(newAddress(), email, PERSON_PASSWORD).expectStatus().isOk();
    }

    @Test
    void a_lower_role_applies_to_the_next_request() {
        String email = addPerson("approver");
        String session = session(email);
        String order = waitingOrder();
        patchPerson(email, "{\"role\": \"viewer\"}").expectStatus().isOk();
        http.post().uri("/api/v1/orders/" + order + "/approvals/approval").headers(cookie(session))
                .contentType(MediaType.APPLICATION_JSON).bodyValue("{\"decision\": \"approved\"}").exchange()
                .expectStatus().isForbidden().expectBody().jsonPath("$.error").isEqualTo("This needs the Approver role.");
    }

    // ---- decider identity ------------------------------------------------------------------------------------------

    @Test
    void a_token_decides_as_token_name_whatever_by_says() {
        String name = "ci-" + NAMES.incrementAndGet();
        String token = json(post(http, "/api/v1/team/tokens", PASSWORD, "{\"name\": \"" + name
                + "\", \"role\": \"approver\"}").expectStatus().isCreated()).get("value").asString();
        assertThat(decide(bearer(token), "{\"decision\": \"approved\", \"by\": \"dana\"}")).isEqualTo("token:" + name);
    }

    @Test
    void a_person_decides_as_their_email() {
        String email = addPerson("approver");
        assertThat(decide(cookie(session(email)), "{\"decision\": \"rejected\", \"by\": \"dana\"}")).isEqualTo(email);
    }

    @Test
    void the_shared_password_decides_as_by_or_api() {
        assertThat(decide(bearer(PASSWORD), "{\"decision\": \"approved\", \"by\": \"dana\"}")).isEqualTo("dana");
        assertThat(decide(bearer(PASSWORD), "{\"decision\": \"approved\"}")).isEqualTo("api");
    }

    // ---- tokens ---------------------------------------------------------------------------------------------------

    @Test
    void a_revocation_on_one_instance_is_seen_by_another_and_no_value_is_ever_listed_or_logged(CapturedOutput logs) {
        WebTestClient second = deployment.startInstance();
        JsonNode created = json(post(http, "/api/v1/team/tokens", PASSWORD,
                "{\"name\": \"deploy-" + NAMES.incrementAndGet() + "\", \"role\": \"operator\"}")
                .expectStatus().isCreated());
        String value = created.get("value").asString();
        assertThat(value).startsWith("owf_").hasSizeGreaterThan(40);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> second.get().uri("/api/v1/flows")
                .headers(bearer(value)).exchange().expectStatus().isOk());

        http.delete().uri("/api/v1/team/tokens/" + created.get("token").get("id").asString())
                .headers(bearer(PASSWORD)).exchange().expectStatus().isOk();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> second.get().uri("/api/v1/flows")
                .headers(bearer(value)).exchange().expectStatus().isUnauthorized());

        String listed = second.get().uri("/api/v1/team/tokens").headers(bearer(PASSWORD)).exchange()
                .expectStatus().isOk().expectBody(String.class).returnResult().getResponseBody();
        assertThat(listed).contains(created.get("token").get("id").asString()).contains("\"revoked\":true")
                .doesNotContain(value).doesNotContain(value.substring(4));
        assertThat(logs.getAll()).doesNotContain(value).doesNotContain(PASSWORD).doesNotContain(PERSON_PASSWORD);
    }

    @Test
    void people_are_listed_without_password_hashes() {
        addPerson("viewer");
        String listed = http.get().uri("/api/v1/team/people").headers(bearer(PASSWORD)).exchange()
                .expectStatus().isOk().expectBody(String.class).returnResult().getResponseBody();
        assertThat(listed).contains("\"people\"").doesNotContain("bcrypt").doesNotContain("password");
    }

    // ---- webhook deliveries ----------------------------------------------------------------------------------------

    @Test
    void only_operators_are_shown_why_a_webhook_delivery_was_refused() {
        for (String role : List.of("viewer", "approver", "operator")) {
            http.get().uri("/api/v1/webhook-subscriptions/whs_known/deliveries").headers(bearer(createToken(role)))
                    .exchange().expectStatus().isOk();
            assertThat(deployment.dispatcher.received().getLast().path()).as(role)
                    .isEqualTo("/internal/subscriptions/whs_known/deliveries?reasons=" + role.equals("operator"));
        }
        http.get().uri("/api/v1/webhook-subscriptions/whs_known/deliveries").headers(bearer(PASSWORD))
                .exchange().expectStatus().isOk();
        assertThat(deployment.dispatcher.received().getLast().path())
                .isEqualTo("/internal/subscriptions/whs_known/deliveries?reasons=true");
    }

    // ---- the team's rules ------------------------------------------------------------------------------------------

    @Test
    void a_hostile_email_on_the_team_form_is_refused_at_once_and_a_malformed_one_is_named() {
        // a run of dots that a backtracking address pattern takes quadratic time over (minutes on the event loop)
        String hostile = "{\"email\": \"a@" + ".".repeat(200_000) + " \", \"name\": \"X\", \"role\": \"viewer\"}";
        long started = System.nanoTime();
        GatewayDeployment.post(http, "/api/v1/team/people", PASSWORD, hostile).expectStatus().isBadRequest()
                .expectBody().jsonPath("$.issues[0].path").isEqualTo("/email");
        // the quadratic check takes over 100 s here; the bound leaves room for a busy machine
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(15));

        for (String malformed : List.of("sam@example", "sam@.com", "sam@example.", "sam@@example.com",
                "@example.com", "sam smith@example.com")) {
            GatewayDeployment.post(http, "/api/v1/team/people", PASSWORD, "{\"email\": \"" + malformed
                            + "\", \"name\": \"X\", \"role\": \"viewer\"}").expectStatus().isBadRequest()
                    .expectBody().jsonPath("$.issues[0].path").isEqualTo("/email")
                    .jsonPath("$.issues[0].message").isEqualTo("Not an email address, e.g. sam@example.com");
        }
        GatewayDeployment.post(http, "/api/v1/team/people", PASSWORD,
                "{\"email\": \"dots.in.name@mail.example.co.uk\", \"name\": \"X\", \"role\": \"viewer\"}")
                .expectStatus().isCreated();
    }

    @Test
    void an_email_is_on_the_team_once() {
        String email = addPerson("viewer");
        post(http, "/api/v1/team/people", PASSWORD, "{\"email\": \"" + email.toUpperCase()
                + "\", \"name\": \"Again\", \"role\": \"viewer\"}").expectStatus().isEqualTo(409);
    }

    @Test
    void a_person_added_without_a_password_gets_a_generated_one_shown_once() {
        String email = "generated-" + UUID.randomUUID() + "@example.com";
        JsonNode added = json(post(http, "/api/v1/team/people", PASSWORD, "{\"email\": \"" + email
                + "\", \"name\": \"Gen\", \"role\": \"viewer\"}").expectStatus().isCreated());
        String password = added.get("password").asString();
        assertThat(password).hasSizeGreaterThanOrEqualTo(20);
        signIn(newAddress(), email, password).expectStatus().isOk();
    }

    @Test
    void an_operator_token_cannot_add_people_before_the_first_one_but_after_it_can() {
        // Bootstrap: on a fresh deployment with a shared password, only the password adds the first person.
        try (GatewayDeployment fresh = new GatewayDeployment("fresh-password")) {
            WebTestClient freshHttp = fresh.startInstance();
            freshHttp.get().uri("/api/v1/flows").exchange().expectStatus().isUnauthorized(); // sign-in even now
            String token = json(post(freshHttp, "/api/v1/team/tokens", "fresh-password",
                    "{\"name\": \"ops\", \"role\": \"operator\"}").expectStatus().isCreated()).get("value").asString();
            String first = "{\"email\": \"first@example.com\", \"name\": \"First\", \"role\": \"viewer\"}";
            post(freshHttp, "/api/v1/team/people", token, first).expectStatus().isForbidden();
            post(freshHttp, "/api/v1/team/people", "fresh-password", first).expectStatus().isCreated();
            post(freshHttp, "/api/v1/team/people", token,
                    "{\"email\": \"second@example.com\", \"name\": \"Second\", \"role\": \"viewer\"}")
                    .expectStatus().isCreated();
        }
    }

    // ---- helpers --------------------------------------------------------------------------------------------------

    private static String newAddress() {
        return "198.51.100." + NAMES.incrementAndGet() % 250;
    }

    private static WebTestClient.ResponseSpec flows(String client, String bearer) {
        return http.get().uri("/api/v1/flows").header("X-Forwarded-For", client)
                .header(HttpHeaders.AUTHORIZATION, "Bearer " + bearer).exchange();
    }

    private static WebTestClient.ResponseSpec signIn(String client, String email, String password) {
        String body = email == null ? "{\"password\": \"" + password + "\"}"
                : "{\"email\": \"" + email + "\", \"password\": \"" + password + "\"}";
        return http.post().uri("/api/v1/auth/sign-in").header("X-Forwarded-For", client)
                .contentType(MediaType.APPLICATION_JSON).bodyValue(body).exchange();
    }

    private static WebTestClient.ResponseSpec me(String session) {
        return http.get().uri("/api/v1/auth/me").headers(cookie(session)).exchange();
    }

    private static String createToken(String role) {
        return json(post(http, "/api/v1/team/tokens", PASSWORD, "{\"name\": \"t-" + NAMES.incrementAndGet()
                + "\", \"role\": \"" + role + "\"}").expectStatus().isCreated()).get("value").asString();
    }

    private static String addPerson(String role) {
        String email = "person-" + UUID.randomUUID() + "@example.com";
        post(http, "/api/v1/team/people", PASSWORD, "{\"email\": \"" + email + "\", \"name\": \"P\", \"role\": \""
                + role + "\", \"password\": \"" + PERSON_PASSWORD + "\"}").expectStatus().isCreated();
        return email;
    }

    private static String session(String email) {
        return signIn(newAddress(), email, PERSON_PASSWORD).expectStatus().isOk().returnResult(String.class)
                .getResponseCookies().getFirst(SessionCookies.NAME).getValue();
    }

    private static String personId(String email) {
        for (JsonNode person : json(http.get().uri("/api/v1/team/people").headers(bearer(PASSWORD)).exchange()
                .expectStatus().isOk()).get("people")) {
            if (person.get("email").asString().equals(email)) {
                return person.get("id").asString();
            }
        }
        throw new AssertionError("No person " + email);
    }

    private static WebTestClient.ResponseSpec patchPerson(String email, String body) {
        return http.patch().uri("/api/v1/team/people/" + personId(email)).headers(bearer(PASSWORD))
                .contentType(MediaType.APPLICATION_JSON).bodyValue(body).exchange();
    }

    private static String waitingOrder() {
        String order = OrderIds.random();
        deployment.processor.put(new FakeOrder(order, "purchase_request", "fp", "waiting", null, "approval", 0));
        return order;
    }

    /** Decides a waiting approval as the given caller; answers who the command names as the decider. */
    private static String decide(java.util.function.Consumer<HttpHeaders> credentials, String body) {
        String order = waitingOrder();
        http.post().uri("/api/v1/orders/" + order + "/approvals/approval").headers(credentials)
                .contentType(MediaType.APPLICATION_JSON).bodyValue(body).exchange().expectStatus().isOk();
        return deployment.processor.received().stream().map(CommandEnvelope::command)
                .filter(c -> c.orderId().equals(order) && c instanceof OrderCommand.DecideApproval)
                .map(c -> ((OrderCommand.DecideApproval) c).by()).findFirst().orElseThrow();
    }
}
