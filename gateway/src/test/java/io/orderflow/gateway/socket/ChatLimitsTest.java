package io.orderflow.gateway.socket;

import static io.orderflow.gateway.testing.GatewayDeployment.json;
import static io.orderflow.gateway.testing.GatewayDeployment.post;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.gateway.orders.OrderIds;
import io.orderflow.gateway.testing.FakeProcessor.FakeOrder;
import io.orderflow.gateway.testing.GatewayDeployment;
import io.orderflow.gateway.testing.StubModel;
import io.orderflow.schemas.json.Json;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * What one caller may spend on the ops chat: messages per caller and per order a minute, order sockets open at once,
 * and chat turns that wait on the model never hold up a sign-in (they run on a pool of their own).
 */
class ChatLimitsTest {

    private static final String PASSWORD = "chat-limits-password";
    private static GatewayDeployment deployment;
    private static StubModel model;
    private static URI limited;
    private static URI live;

    @BeforeAll
    static void deployment() {
        model = new StubModel();
        deployment = new GatewayDeployment(PASSWORD);
        deployment.startInstance("--orderflow.chat.mode=mock", "--orderflow.limits.chats-per-minute=2",
                "--orderflow.limits.chats-per-order-per-minute=3", "--orderflow.limits.sockets-per-caller=2");
        limited = deployment.url(0);
        deployment.startInstance("--orderflow.chat.mode=live", "--orderflow.chat.base-url=" + model.baseUrl(),
                "--orderflow.chat.api-key=stub-key", "--orderflow.chat.model=stub-model",
                "--orderflow.chat.timeout=30s", "--orderflow.limits.model-threads=1",
                "--orderflow.limits.chats-per-minute=100", "--orderflow.limits.chats-per-order-per-minute=100");
        live = deployment.url(1);
    }

    @AfterAll
    static void stop() {
        deployment.close();
        model.close();
    }

    @Test
    void a_caller_past_its_chat_rate_is_told_to_wait_and_so_is_an_order_past_its_own() {
        String order = order();
        String first = token();
        String second = token();
        try (SocketClient a = SocketClient.open(limited, order, bearer(first));
             SocketClient b = SocketClient.open(limited, order, bearer(second))) {
            assertThat(a.call("chat", "{\"text\": \"status?\"}").has("result")).isTrue();
            assertThat(a.call("chat", "{\"text\": \"status?\"}").has("result")).isTrue();
            assertThat(a.call("chat", "{\"text\": \"status?\"}").get("error").asString())
                    .isEqualTo("Too many chat messages from you; wait 30 s");

            assertThat(b.call("chat", "{\"text\": \"status?\"}").has("result")).isTrue();
            assertThat(b.call("chat", "{\"text\": \"status?\"}").get("error").asString())
                    .isEqualTo("Too many chat messages on this order; wait 20 s");

            deployment.clock.advance(Duration.ofSeconds(30));
            assertThat(a.call("chat", "{\"text\": \"status?\"}").has("result")).isTrue();
        }
    }

    @Test
    void a_caller_holds_at_most_its_number_of_order_sockets_at_once() {
        String order = order();
        String viewer = token();
        SocketClient first = SocketClient.open(limited, order, bearer(viewer));
        try (SocketClient second = SocketClient.open(limited, order, bearer(viewer));
             SocketClient third = SocketClient.open(limited, order, bearer(viewer))) {
            assertThat(third.nextPush().get("error").asString())
                    .isEqualTo("Too many order pages open; close some and reload");
            assertThat(third.closeStatus().getCode()).isEqualTo(4429);
            assertThat(second.isOpen()).isTrue();

            first.close();
            await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
                try (SocketClient again = SocketClient.open(limited, order, bearer(viewer))) {
                    assertThat(again.nextPush().get("type").asString()).isEqualTo("state");
                }
            });
        }
    }

    @Test
    void a_sign_in_is_answered_while_every_chat_turn_waits_on_a_slow_model() {
        String order = order();
        String viewer = token();
        StubModel.Answer slow = StubModel.Answer.late(Duration.ofSeconds(15),
                "{\"action\": \"reply\", \"reply\": \"late\"}");
        model.script(java.util.stream.Stream.generate(() -> slow).limit(24).toArray(StubModel.Answer[]::new));
        List<SocketClient> sockets = new ArrayList<>();
        try {
            // 24 chats waiting on the model: more than the threads of Reactor's shared pool on a small machine
            for (int i = 0; i < 12; i++) {
                SocketClient socket = SocketClient.open(live, order, bearer(viewer));
                sockets.add(socket);
                for (int chat = 0; chat < 2; chat++) {
                    socket.sendRaw(Json.write(Json.object().put("id", chat).put("method", "chat")
                            .set("params", Json.object().put("text", "how is it going?"))));
                }
            }
            await().atMost(Duration.ofSeconds(15)).until(() -> !model.requests().isEmpty());

            long started = System.nanoTime();
            WebTestClient.bindToServer().baseUrl(live.toString()).responseTimeout(Duration.ofSeconds(30)).build()
                    .post().uri("/api/v1/auth/sign-in").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue("{\"password\": \"" + PASSWORD + "\"}").exchange().expectStatus().isOk();
            // a sign-in queued behind the model calls would wait about 15 s
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(7));
        } finally {
            sockets.forEach(SocketClient::close);
            model.script();
        }
    }

    private static String order() {
        String order = OrderIds.random();
        deployment.processor.put(new FakeOrder(order, "storefront_order", "fp", "running", null, null, 0));
        return order;
    }

    private static String token() {
        WebTestClient http = WebTestClient.bindToServer().baseUrl(limited.toString()).build();
        String value = json(post(http, "/api/v1/team/tokens", PASSWORD, "{\"name\": \"limits-" + UUID.randomUUID()
                + "\", \"role\": \"viewer\"}").expectStatus().isCreated()).get("value").asString();
        for (URI instance : List.of(limited, live)) {
            WebTestClient client = WebTestClient.bindToServer().baseUrl(instance.toString()).build();
            await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> client.get().uri("/api/v1/auth/me")
                    .header(HttpHeaders.AUTHORIZATION, "Bearer " + value).exchange().expectStatus().isOk());
        }
        return value;
    }

    private static HttpHeaders bearer(String value) {
        HttpHeaders headers = new HttpHeaders();
        headers.set(HttpHeaders.AUTHORIZATION, "Bearer " + value);
        return headers;
    }
}
