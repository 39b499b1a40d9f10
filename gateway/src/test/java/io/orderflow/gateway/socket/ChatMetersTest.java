package io.orderflow.gateway.socket;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.gateway.orders.OrderIds;
import io.orderflow.gateway.testing.FakeProcessor.FakeOrder;
import io.orderflow.gateway.testing.GatewayDeployment;
import io.orderflow.gateway.testing.StubModel;
import io.orderflow.gateway.testing.StubModel.Answer;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;

/**
 * The ops chat's turns are counted by who answered ({@code orderflow.chat.turns{outcome}}), on a gateway in live mode
 * against a local stub of the chat-completions protocol: a turn the model answers counts as {@code model}; a model
 * that answers 500 counts an {@code error} and the turn the heuristic answers in its place a {@code fallback}.
 */
class ChatMetersTest {

    private static final String PASSWORD = "chat-meters-password";
    private static GatewayDeployment deployment;
    private static StubModel model;
    private static URI live;
    private static MeterRegistry registry;

    @BeforeAll
    static void deployment() {
        model = new StubModel();
        deployment = new GatewayDeployment(PASSWORD);
        deployment.startInstance("--orderflow.chat.mode=live", "--orderflow.chat.base-url=" + model.baseUrl(),
                "--orderflow.chat.api-key=stub-key", "--orderflow.chat.model=stub-model",
                "--orderflow.chat.timeout=1s");
        live = deployment.url(0);
        registry = deployment.bean(0, MeterRegistry.class);
    }

    @AfterAll
    static void stop() {
        deployment.close();
        model.close();
    }

    @Test
    void a_turn_the_model_answers_counts_as_model_and_a_failed_call_as_error_and_fallback() {
        Map<String, Double> before = turns();

        model.script(Answer.content("{\"action\": \"reply\", \"reply\": \"All fine.\"}"));
        assertThat(chat("status?")).isEqualTo("All fine.");
        assertThat(turns()).containsEntry("model", before.get("model") + 1)
                .containsEntry("fallback", before.get("fallback")).containsEntry("error", before.get("error"));

        model.script(Answer.status(500));
        assertThat(chat("status?")).startsWith("Order ");
        assertThat(turns()).containsEntry("model", before.get("model") + 1)
                .containsEntry("fallback", before.get("fallback") + 1).containsEntry("error", before.get("error") + 1);
    }

    private static String chat(String text) {
        String order = OrderIds.random();
        deployment.processor.put(new FakeOrder(order, "storefront_order", "fp", "running", null, null, 0));
        HttpHeaders operator = new HttpHeaders();
        operator.set(HttpHeaders.AUTHORIZATION, "Bearer " + PASSWORD);
        try (SocketClient socket = SocketClient.open(live, order, operator)) {
            socket.nextState();
            return socket.call("chat", "{\"text\": \"" + text + "\"}").get("result").get("reply").asString();
        }
    }

    private static Map<String, Double> turns() {
        return Map.of("model", count("model"), "fallback", count("fallback"), "error", count("error"));
    }

    private static double count(String outcome) {
        return registry.get("orderflow.chat.turns").tag("outcome", outcome).counter().count();
    }
}
