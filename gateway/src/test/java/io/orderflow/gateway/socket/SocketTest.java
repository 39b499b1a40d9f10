package io.orderflow.gateway.socket;

import static io.orderflow.gateway.testing.GatewayDeployment.json;
import static io.orderflow.gateway.testing.GatewayDeployment.post;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.gateway.auth.SessionCookies;
import io.orderflow.gateway.orders.OrderIds;
import io.orderflow.gateway.testing.FakeProcessor.FakeOrder;
import io.orderflow.gateway.testing.GatewayDeployment;
import io.orderflow.schemas.commands.CommandEnvelope;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.events.OrderUpdate;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.topics.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.socket.client.ReactorNettyWebSocketClient;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import tools.jackson.databind.JsonNode;

/**
 * The order socket over a real WebSocket, on a deployment with a shared password: the state pushed on connect and
 * after an {@code order-updates} notice (to every socket on the order), each method at each role with the decider
 * recorded from the upgrade's principal, and rule 6: a lower role at once, and close code 4401 once the sign-in ended.
 */
class SocketTest {

    private static final String PASSWORD = "socket-shared-password";
    private static final String PERSON_PASSWORD = "correct horse battery";
    private static final String ENDED = "Your sign-in has ended. Reload the page to sign in again.";

    private static GatewayDeployment deployment;
    private static WebTestClient http;
    private static KafkaProducer<String, OrderUpdate> notices;

    @BeforeAll
    static void deployment() {
        deployment = new GatewayDeployment(PASSWORD);
        http = deployment.startInstance();
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, deployment.bootstrap);
        notices = new KafkaProducer<>(props, Topics.ORDER_UPDATES.keySerde().serializer(),
                Topics.ORDER_UPDATES.valueSerde().serializer());
    }

    @AfterAll
    static void stop() {
        notices.close();
        deployment.close();
    }

    // ---- pushes ---------------------------------------------------------------------------------------------------

    @Test
    void the_state_is_pushed_on_connect_as_get_order_answers_it() {
        String order = order("running", null, null);
        JsonNode read = json(http.get().uri("/api/v1/orders/" + order).headers(h -> h.addAll(bearer(PASSWORD))).exchange()
                .expectStatus().isOk());
        try (SocketClient socket = open(order, cookie(session(addPerson("viewer"))))) {
            assertThat(socket.nextState()).isEqualTo(read);
            assertThat(read.get("status").asString()).isEqualTo("running");
        }
    }

    @Test
    void a_notice_on_order_updates_pushes_the_new_state_to_both_sockets_on_the_order() {
        String order = order("running", null, null);
        String other = order("running", null, null);
        try (SocketClient first = open(order, cookie(session(addPerson("viewer"))));
             SocketClient second = open(order, bearer(createToken("viewer")));
             SocketClient elsewhere = open(other, bearer(PASSWORD))) {
            assertThat(first.nextState().get("status").asString()).isEqualTo("running");
            assertThat(second.nextState().get("status").asString()).isEqualTo("running");
            assertThat(elsewhere.nextState().get("status").asString()).isEqualTo("running");

            deployment.processor.put(new FakeOrder(order, "storefront_order", "fp", "waiting", "payment.received",
                    null, 0));
            notify(order, OrderStatus.WAITING, 2);

            assertThat(first.nextState().get("status").asString()).isEqualTo("waiting");
            assertThat(second.nextState().get("status").asString()).isEqualTo("waiting");
            // the other order's socket got nothing from that notice: its next push is its own order's change
            deployment.processor.put(new FakeOrder(other, "storefront_order", "fp", "completed", null, null, 0));
            notify(other, OrderStatus.COMPLETED, 2);
            assertThat(elsewhere.nextState().get("status").asString()).isEqualTo("completed");
            assertThat(first.isOpen()).isTrue();
        }
    }

    @Test
    void closed_sockets_leave_nothing_watched_on_the_instance() {
        String order = order("running", null, null);
        OrderUpdates updates = deployment.bean(0, OrderUpdates.class);
        try (SocketClient first = open(order, bearer(PASSWORD)); SocketClient second = open(order, bearer(PASSWORD))) {
            first.nextState();
            second.nextState();
            assertThat(updates.watchedOrders()).isPositive();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> updates.watchedOrders() == 0);
    }

    @Test
    void an_unknown_order_gets_an_error_push_and_the_socket_closes_with_4404() {
        try (SocketClient socket = open(OrderIds.random(), bearer(PASSWORD))) {
            assertThat(socket.nextPush().get("error").asString()).endsWith("not found");
            assertThat(socket.closeStatus().getCode()).isEqualTo(4404);
        }
    }

    // ---- the upgrade --------------------------------------------------------------------------------------------

    @Test
    void an_upgrade_without_a_principal_or_with_a_wrong_token_is_refused_with_401() {
        String order = order("running", null, null);
        for (HttpHeaders credentials : List.of(new HttpHeaders(), bearer("owf_neverIssued"), bearer("wrong"),
                cookie("no-such-session"))) {
            StepVerifier.create(new ReactorNettyWebSocketClient().execute(
                            SocketClient.socketUri(deployment.url(0), order), credentials, session -> Mono.empty()))
                    .expectErrorSatisfies(e -> assertThat(e).hasMessageContaining("401"))
                    .verify(Duration.ofSeconds(15));
        }
    }

    // ---- methods and roles --------------------------------------------------------------------------------------

    @Test
    void a_viewer_is_refused_every_method_with_the_role_it_needs_and_nothing_is_sent() {
        String order = order("waiting", "payment.received", "approval");
        try (SocketClient socket = open(order, cookie(session(addPerson("viewer"))))) {
            socket.nextState();
            assertThat(socket.call("decide", "{\"nodeId\": \"approval\", \"decision\": \"approved\"}")
                    .get("error").asString()).isEqualTo("This needs the Approver role.");
            assertThat(socket.call("deliver", "{\"event\": \"payment.received\"}").get("error").asString())
                    .isEqualTo("This needs the Operator role.");
            assertThat(socket.call("cancel", "{}").get("error").asString())
                    .isEqualTo("This needs the Operator role.");
            assertThat(socket.isOpen()).isTrue();
        }
        assertThat(commandsFor(order)).isEmpty();
    }

    @Test
    void an_approver_decides_as_their_email_whatever_by_or_a_principal_in_params_says_but_cannot_deliver() {
        String order = order("waiting", "payment.received", "approval");
        String email = addPerson("approver");
        try (SocketClient socket = open(order, cookie(session(email)))) {
            socket.nextState();
            JsonNode reply = socket.call("decide", "{\"nodeId\": \"approval\", \"decision\": \"approved\", "
                    + "\"by\": \"mallory\", \"note\": \"fine\", "
                    + "\"principal\": {\"kind\": \"token\", \"identity\": \"token:root\", \"role\": \"operator\"}}");
            assertThat(reply.get("result").get("ok").asBoolean()).as("%s", reply).isTrue();
            assertThat(socket.call("deliver", "{\"event\": \"payment.received\", "
                    + "\"principal\": {\"role\": \"operator\"}}").get("error").asString())
                    .isEqualTo("This needs the Operator role.");
        }
        List<CommandEnvelope> sent = commandsFor(order);
        assertThat(sent).hasSize(1);
        assertThat(sent.getFirst().command()).isEqualTo(
                new OrderCommand.DecideApproval(order, "approval", "approved", email, "fine"));
        assertThat(sent.getFirst().caller().identity()).isEqualTo(email);
        assertThat(sent.getFirst().caller().role()).isEqualTo("approver");
    }

    @Test
    void a_token_decides_as_its_name_and_the_shared_password_as_by() {
        String order = order("waiting", null, "approval");
        String name = "socket-approver-" + UUID.randomUUID();
        String token = json(post(http, "/api/v1/team/tokens", PASSWORD, "{\"name\": \"" + name
                + "\", \"role\": \"approver\"}").expectStatus().isCreated()).get("value").asString();
        try (SocketClient socket = open(order, bearer(token))) {
            socket.nextState();
            assertThat(socket.call("decide", "{\"nodeId\": \"approval\", \"decision\": \"rejected\", "
                    + "\"by\": \"mallory\"}").has("result")).isTrue();
        }
        String second = order("waiting", null, "approval");
        try (SocketClient socket = open(second, bearer(PASSWORD))) {
            socket.nextState();
            assertThat(socket.call("decide", "{\"nodeId\": \"approval\", \"decision\": \"approved\", "
                    + "\"by\": \"dana\"}").has("result")).isTrue();
        }
        assertThat(((OrderCommand.DecideApproval) commandsFor(order).getFirst().command()).by())
                .isEqualTo("token:" + name);
        assertThat(((OrderCommand.DecideApproval) commandsFor(second).getFirst().command()).by()).isEqualTo("dana");
    }

    @Test
    void an_operator_delivers_and_cancels_and_a_second_cancel_answers_ok_false() {
        String order = order("waiting", "payment.received", null);
        try (SocketClient socket = open(order, cookie(session(addPerson("operator"))))) {
            socket.nextState();
            JsonNode delivered = socket.call("deliver", "{\"event\": \"payment.received\"}").get("result");
            assertThat(delivered.get("delivered").asBoolean()).isTrue();
            assertThat(delivered.get("nodeId").asString()).isEqualTo("wait_payment");
            assertThat(socket.call("cancel", "{}").get("result").get("ok").asBoolean()).isTrue();
            assertThat(socket.call("cancel", "{\"reason\": \"again\"}").get("result").get("ok").asBoolean())
                    .isFalse();
        }
        List<OrderCommand> sent = commandsFor(order).stream().map(CommandEnvelope::command).toList();
        assertThat(sent).containsExactly(
                new OrderCommand.DeliverEvent(order, "payment.received", Json.object()),
                new OrderCommand.CancelOrder(order, "Cancelled by operator"),
                new OrderCommand.CancelOrder(order, "again"));
    }

    @Test
    void unknown_methods_and_invalid_params_are_errors_and_the_socket_stays_open() {
        String order = order("waiting", null, "approval");
        try (SocketClient socket = open(order, bearer(PASSWORD))) {
            socket.nextState();
            assertThat(socket.call("summon", "{\"text\": \"hi\"}").get("error").asString())
                    .startsWith("Unknown method");
            assertThat(socket.call("chat", "{\"text\": \"  \"}").get("error").asString()).contains("text");
            assertThat(socket.call("decide", "{\"decision\": \"approved\"}").get("error").asString())
                    .contains("nodeId");
            JsonNode invalid = socket.call("decide", "{\"nodeId\": \"approval\", \"decision\": \"maybe\"}");
            assertThat(invalid.get("error").asString()).isNotBlank();
            assertThat(invalid.get("issues").isArray()).isTrue();
            JsonNode notWaiting = socket.call("decide", "{\"nodeId\": \"elsewhere\", \"decision\": \"approved\"}");
            assertThat(notWaiting.get("error").asString()).isEqualTo("That node is not waiting for an approval.");
            assertThat(notWaiting.get("status").asInt()).as("the agent's status, so a page tells a conflict")
                    .isEqualTo(409);
            socket.sendRaw("not json");
            assertThat(socket.nextReply().get("error").asString()).isNotBlank();
            assertThat(socket.isOpen()).isTrue();
        }
        assertThat(commandsFor(order)).hasSize(1); // only the decide that named a node and a valid decision
    }

    // ---- rule 6 -----------------------------------------------------------------------------------------------------

    @Test
    void a_lower_role_applies_to_the_next_call_on_an_open_socket() {
        String order = order("waiting", "payment.received", null);
        String email = addPerson("operator");
        try (SocketClient socket = open(order, cookie(session(email)))) {
            socket.nextState();
            patchPerson(email, "{\"role\": \"viewer\"}");
            assertThat(socket.call("cancel", "{}").get("error").asString())
                    .isEqualTo("This needs the Operator role.");
            assertThat(socket.isOpen()).isTrue();
        }
        assertThat(commandsFor(order)).isEmpty();
    }

    @Test
    void signing_out_ends_the_socket_with_4401_at_the_next_call() {
        String order = order("waiting", "payment.received", null);
        String session = session(addPerson("operator"));
        try (SocketClient socket = open(order, cookie(session))) {
            socket.nextState();
            // as the dashboard's page signs out: a browser's same-origin request
            http.post().uri("/api/v1/auth/sign-out").headers(h -> h.addAll(cookie(session)))
                    .header("Sec-Fetch-Site", "same-origin").exchange().expectStatus().isOk();
            assertThat(socket.call("cancel", "{}").get("error").asString()).isEqualTo(ENDED);
            assertThat(socket.closeStatus().getCode()).isEqualTo(4401);
        }
        assertThat(commandsFor(order)).isEmpty();
    }

    @Test
    void disabling_the_person_ends_the_socket_with_4401_at_the_next_call() {
        String order = order("waiting", null, "approval");
        String email = addPerson("approver");
        try (SocketClient socket = open(order, cookie(session(email)))) {
            socket.nextState();
            patchPerson(email, "{\"disabled\": true}");
            assertThat(socket.call("decide", "{\"nodeId\": \"approval\", \"decision\": \"approved\"}")
                    .get("error").asString()).isEqualTo(ENDED);
            assertThat(socket.closeStatus().getCode()).isEqualTo(4401);
        }
        assertThat(commandsFor(order)).isEmpty();
    }

    @Test
    void an_expired_session_ends_the_socket_with_4401_before_any_role_check() {
        String order = order("running", null, null);
        try (SocketClient socket = open(order, cookie(session(addPerson("viewer"))))) {
            socket.nextState();
            deployment.clock.advance(Duration.ofHours(12)); // a person's session lasts 12 hours
            assertThat(socket.call("cancel", "{}").get("error").asString()).isEqualTo(ENDED);
            assertThat(socket.closeStatus().getCode()).isEqualTo(4401);
        }
    }

    @Test
    void a_socket_on_a_second_gateway_instance_gets_the_push_from_its_own_reader() {
        String order = order("running", null, null);
        WebTestClient second = deployment.startInstance();
        second.get().uri("/health").exchange().expectStatus().isOk();
        try (SocketClient here = open(order, bearer(PASSWORD));
             SocketClient there = SocketClient.open(deployment.url(1), order, bearer(PASSWORD))) {
            here.nextState();
            there.nextState();
            deployment.processor.put(new FakeOrder(order, "storefront_order", "fp", "completed", null, null, 0));
            notify(order, OrderStatus.COMPLETED, 2);
            assertThat(here.nextState().get("status").asString()).isEqualTo("completed");
            assertThat(there.nextState().get("status").asString()).isEqualTo("completed");
        }
    }

    // ---- helpers ----------------------------------------------------------------------------------------------------

    private static SocketClient open(String order, HttpHeaders credentials) {
        return SocketClient.open(deployment.url(0), order, credentials);
    }

    private static String order(String status, String waitingEvent, String waitingApprovalNode) {
        String order = OrderIds.random();
        deployment.processor.put(new FakeOrder(order, "storefront_order", "fp", status, waitingEvent,
                waitingApprovalNode, 0));
        return order;
    }

    private static void notify(String order, OrderStatus status, long version) {
        notices.send(new ProducerRecord<>(Topics.ORDER_UPDATES.name(), order,
                new OrderUpdate(order, status, version, deployment.clock.millis())));
        notices.flush();
    }

    /** The commands the processor received for {@code order}, once the socket's calls have all been answered. */
    private static List<CommandEnvelope> commandsFor(String order) {
        return deployment.processor.received().stream().filter(e -> e.command().orderId().equals(order)).toList();
    }

    private static HttpHeaders bearer(String value) {
        HttpHeaders headers = new HttpHeaders();
        headers.set(HttpHeaders.AUTHORIZATION, "Bearer " + value);
        return headers;
    }

    private static HttpHeaders cookie(String value) {
        HttpHeaders headers = new HttpHeaders();
        headers.add(HttpHeaders.COOKIE, SessionCookies.NAME + "=" + value);
        return headers;
    }

    private static String createToken(String role) {
        return json(post(http, "/api/v1/team/tokens", PASSWORD, "{\"name\": \"socket-" + UUID.randomUUID()
                + "\", \"role\": \"" + role + "\"}").expectStatus().isCreated()).get("value").asString();
    }

    private static String addPerson(String role) {
        String email = "socket-" + UUID.randomUUID() + "@example.com";
        post(http, "/api/v1/team/people", PASSWORD, "{\"email\": \"" + email + "\", \"name\": \"P\", \"role\": \""
                + role + "\", \"password\": \"" + PERSON_PASSWORD + "\"}").expectStatus().isCreated();
        return email;
    }

    private static String session(String email) {
        return http.post().uri("/api/v1/auth/sign-in").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"email\": \"" + email + "\", \"password\": \"" + PERSON_PASSWORD + "\"}").exchange()
                .expectStatus().isOk().returnResult(String.class).getResponseCookies()
                .getFirst(SessionCookies.NAME).getValue();
    }

    private static void patchPerson(String email, String body) {
        String id = null;
        for (JsonNode person : json(http.get().uri("/api/v1/team/people").headers(h -> h.addAll(bearer(PASSWORD)))
                .exchange().expectStatus().isOk()).get("people")) {
            if (person.get("email").asString().equals(email)) {
                id = person.get("id").asString();
            }
        }
        assertThat(id).as("person %s", email).isNotNull();
        http.patch().uri("/api/v1/team/people/" + id).headers(h -> h.addAll(bearer(PASSWORD)))
                .contentType(MediaType.APPLICATION_JSON).bodyValue(body).exchange().expectStatus().isOk();
    }
}
