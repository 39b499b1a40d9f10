package io.orderflow.gateway.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.gateway.testing.StubModel;
import io.orderflow.gateway.testing.StubModel.Answer;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.query.OrderView;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** The chat's rules without a socket: parsing a turn, the heuristic, truncation, the brief and the model settings. */
class ChatRulesTest {

    private static final OrderView WAITING = Json.MAPPER.readValue("""
            {"orderId": "ord_1", "status": "waiting", "order": {"id": "ord_1", "total": 39},
             "waits": [{"nodeId": "approve", "kind": "approval", "title": "Manager approval", "event": "approval"},
                       {"nodeId": "pay", "kind": "event", "title": "Wait for payment", "event": "payment.received"}],
             "vars": {"channel": "web"},
             "nodes": {"extract": {"status": "succeeded"}, "approve": {"status": "waiting"},
                       "ship": {"status": "pending"}},
             "timeline": [%s],
             "chat": [], "instanceId": "ord_1.1", "generation": 1}
            """.formatted(String.join(",", java.util.stream.IntStream.rangeClosed(1, 12)
            .mapToObj(i -> "{\"at\": " + i + ", \"kind\": \"k\", \"message\": \"entry " + i + "\"}").toList())),
            OrderView.class);

    // ---- rule 2: one turn's JSON --------------------------------------------------------------------------------------

    @Test
    void a_reply_and_a_tool_call_parse() {
        assertThat(ModelAnswer.parse("{\"action\": \"reply\", \"reply\": \"Done.\"}"))
                .isEqualTo(ModelAnswer.reply("Done."));
        ModelAnswer tool = ModelAnswer.parse("{\"action\": \"tool\", \"tool\": \"deliver_event\", "
                + "\"args\": {\"event\": \"payment.received\"}}");
        assertThat(tool.tool()).isEqualTo("deliver_event");
        assertThat(tool.args().get("event").asString()).isEqualTo("payment.received");
        assertThat(ModelAnswer.parse("{\"action\": \"tool\", \"tool\": \"get_state\"}").args()).isEmpty();
    }

    @Test
    void anything_else_is_malformed() {
        for (String bad : List.of("", "Sure!", "[1]", "{\"action\": \"think\"}", "{\"action\": \"reply\"}",
                "{\"action\": \"reply\", \"reply\": \" \"}", "{\"action\": \"tool\", \"tool\": \"rm_rf\"}",
                "{\"action\": \"tool\", \"tool\": \"cancel\", \"args\": [1]}")) {
            assertThatThrownBy(() -> ModelAnswer.parse(bad)).as(bad).isInstanceOf(ModelAnswer.Malformed.class);
        }
        assertThatThrownBy(() -> ModelAnswer.parse(null)).isInstanceOf(ModelAnswer.Malformed.class);
    }

    // ---- rule 6: the heuristic ---------------------------------------------------------------------------------------

    @Test
    void keywords_pick_one_tool_and_anything_else_gets_the_status() {
        assertThat(Heuristic.next("please approve it", WAITING, List.of()).tool()).isEqualTo("approve");
        assertThat(Heuristic.next("Reject this", WAITING, List.of()).tool()).isEqualTo("reject");
        assertThat(Heuristic.next("cancel the order", WAITING, List.of()).tool()).isEqualTo("cancel");
        assertThat(Heuristic.next("show me the details", WAITING, List.of()).tool()).isEqualTo("get_state");
        ModelAnswer deliver = Heuristic.next("deliver payment.received", WAITING, List.of());
        assertThat(deliver.tool()).isEqualTo("deliver_event");
        assertThat(deliver.args().get("event").asString()).isEqualTo("payment.received");
        assertThat(Heuristic.next("deliver it", WAITING, List.of()).args().get("event").asString())
                .as("the event the order waits for").isEqualTo("payment.received");
        ModelAnswer status = Heuristic.next("status?", WAITING, List.of());
        assertThat(status.isReply()).isTrue();
        assertThat(status.reply()).isEqualTo("Order ord_1 is waiting, waiting on: Manager approval (approval) · "
                + "Wait for payment (event payment.received).");
    }

    @Test
    void after_a_tool_the_heuristic_replies_what_the_tool_did() {
        ChatTools.ToolCall call = new ChatTools.ToolCall("approve", Json.object(), "Proposed", Json.object(), null,
                "I prepared a proposal.");
        assertThat(Heuristic.next("approve it", WAITING, List.of(call))).isEqualTo(ModelAnswer.reply(
                "I prepared a proposal."));
    }

    // ---- deliver_event acts only for a message that names the event ------------------------------------------------

    @Test
    void a_message_names_an_event_only_as_a_whole_name_in_any_case() {
        assertThat(ChatTools.names("please deliver payment.received.", "payment.received")).isTrue();
        assertThat(ChatTools.names("Deliver PAYMENT.RECEIVED now", "payment.received")).isTrue();
        assertThat(ChatTools.names("(payment.received)", "payment.received")).isTrue();
        assertThat(ChatTools.names("what is the status?", "payment.received")).isFalse();
        assertThat(ChatTools.names("deliver payment.received_late", "payment.received")).isFalse();
        assertThat(ChatTools.names("deliver payment.received.twice", "payment.received")).isFalse();
        assertThat(ChatTools.names("deliver xpayment.received", "payment.received")).isFalse();
    }

    // ---- rules 1 and 3 ------------------------------------------------------------------------------------------------

    @Test
    void a_message_is_cut_at_4000_characters_without_splitting_a_surrogate_pair() {
        assertThat(OpsChat.truncate("a".repeat(4_001))).hasSize(4_000);
        assertThat(OpsChat.truncate("short")).isEqualTo("short");
        String emoji = "a".repeat(3_999) + "\uD83D\uDE00" + "b";
        assertThat(OpsChat.truncate(emoji)).isEqualTo("a".repeat(3_999));
    }

    @Test
    void the_brief_has_status_order_waits_vars_non_pending_nodes_and_the_last_10_timeline_messages() {
        ObjectNode brief = Brief.of(WAITING);
        assertThat(brief.get("status").asString()).isEqualTo("waiting");
        assertThat(brief.get("order").get("total").asInt()).isEqualTo(39);
        assertThat(brief.get("waits")).hasSize(2);
        assertThat(brief.get("vars").get("channel").asString()).isEqualTo("web");
        assertThat(brief.get("nodes").propertyNames()).containsExactly("extract", "approve");
        assertThat(brief.get("timeline")).hasSize(10);
        assertThat(brief.get("timeline").get(0).asString()).isEqualTo("entry 3");
        assertThat(brief.has("chat")).isFalse();
    }

    // ---- live mode settings -------------------------------------------------------------------------------------------

    @Test
    void settings_default_to_live_openai_and_never_print_the_key() {
        ChatProperties defaults = new ChatProperties(null, null, null, null, null, null, null);
        assertThat(defaults.mock()).isFalse();
        assertThat(defaults.endpoint()).isEqualTo("https://api.openai.com/v1");
        assertThat(defaults.timeout()).isEqualTo(Duration.ofSeconds(20));
        ChatProperties keyed = new ChatProperties("live", null, null, "sk-secret-value", null, null, null);
        assertThat(keyed.toString()).doesNotContain("sk-secret-value").contains("apiKey=set");
        assertThat(new ChatProperties("MOCK", null, null, null, null, null, null).mock()).isTrue();
        assertThat(new ChatProperties(null, null, null, null, null, "acct123/orders", null).endpoint())
                .isEqualTo("https://gateway.ai.cloudflare.com/v1/acct123/orders/openai");
    }

    @Test
    void without_a_key_live_mode_has_no_model_and_mock_mode_never_has_one() {
        assertThat(OpsChat.modelFor(new ChatProperties("live", null, null, null, null, null, null))).isEmpty();
        assertThat(OpsChat.modelFor(new ChatProperties("mock", null, null, "sk-x", null, null, null))).isEmpty();
    }

    @Test
    void with_AI_GATEWAY_ID_the_client_calls_through_the_gateway_url() {
        try (StubModel stub = new StubModel()) {
            stub.script(Answer.content("{\"action\": \"reply\", \"reply\": \"via the gateway\"}"));
            ChatProperties settings = new ChatProperties("live", "http://127.0.0.1:1/unused", "m", "k",
                    Duration.ofSeconds(5), "acct123/orders", stub.root());
            try (OpenAiChatModel model = new OpenAiChatModel(settings)) {
                String content = model.complete(List.of(ChatModel.Message.system("s"), ChatModel.Message.user("u")));
                assertThat(ModelAnswer.parse(content).reply()).isEqualTo("via the gateway");
            }
            assertThat(stub.requests()).singleElement().satisfies(request -> {
                assertThat(request.path()).isEqualTo("/acct123/orders/openai/chat/completions");
                assertThat(request.shown()).isEqualTo("system: s\nuser: u\n");
            });
        }
    }
}
