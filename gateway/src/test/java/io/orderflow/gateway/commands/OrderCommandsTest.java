package io.orderflow.gateway.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.gateway.commands.OrderCommands.Channel;
import io.orderflow.gateway.api.ApiException;
import io.orderflow.schemas.commands.BatchAction;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.commands.OrderSource;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.json.Json;
import org.junit.jupiter.api.Test;

class OrderCommandsTest {

    @Test
    void the_decider_is_the_callers_identity_except_for_open_and_password_callers() {
        assertThat(OrderCommands.decider(Caller.OPEN, null)).isEqualTo("api");
        assertThat(OrderCommands.decider(Caller.OPEN, "dana")).isEqualTo("dana");
        assertThat(OrderCommands.decider(new Caller("password", null, "operator"), "")).isEqualTo("api");
        assertThat(OrderCommands.decider(new Caller("token", "token:ci", "approver"), "dana")).isEqualTo("token:ci");
        assertThat(OrderCommands.decider(new Caller("person", "a@b.c", "approver"), "dana")).isEqualTo("a@b.c");
    }

    @Test
    void a_cancel_without_a_reason_records_the_default_of_its_channel() {
        assertThat(OrderCommands.cancel(Channel.API, "o1", Json.object()).reason()).isEqualTo("Cancelled via API");
        assertThat(OrderCommands.cancel(Channel.SOCKET, "o1", Json.object().put("reason", " ")).reason())
                .isEqualTo("Cancelled by operator");
        assertThat(OrderCommands.reason(Channel.CHAT, null)).isEqualTo("Cancelled from the ops chat");
        assertThat(OrderCommands.cancel(Channel.API, "o1", Json.object().put("reason", "dup")).reason())
                .isEqualTo("dup");
    }

    @Test
    void a_decide_records_the_decision_note_and_resolved_decider() {
        OrderCommand.DecideApproval decide = OrderCommands.decide(new Caller("token", "token:ci", "approver"), "o1",
                "n1", Json.object().put("decision", "approved").put("by", "dana").put("note", "ok"));
        assertThat(decide).isEqualTo(new OrderCommand.DecideApproval("o1", "n1", "approved", "token:ci", "ok"));
    }

    @Test
    void a_delivered_event_without_payload_carries_an_empty_object_and_the_chat_marks_its_source() {
        assertThat(OrderCommands.deliver("o1", Json.object().put("event", "payment.received")).payload())
                .isEqualTo(Json.object());
        assertThat(OrderCommands.chatDeliver("o1", "e", null).payload()).isEqualTo(Json.object().put("source", "chat"));
        assertThat(OrderCommands.chatDeliver("o1", "e", Json.object().put("source", "erp")).payload())
                .isEqualTo(Json.object().put("source", "erp"));
    }

    private static final FlowVersion FLOW = new FlowVersion("f", 2, 0, null);

    private static StartRequest startRequest(String json) {
        return StartRequest.of(Json.MAPPER.readTree(json));
    }

    @Test
    void only_a_keyed_start_carries_the_fingerprint_of_what_it_asked_for() {
        StartRequest request = startRequest("{\"flowId\": \"f\", \"input\": {\"type\": \"reorder\"}}");
        OrderCommand.StartOrder keyed = OrderCommands.start(request, "o1", FLOW, true);
        assertThat(keyed).isEqualTo(new OrderCommand.StartOrder("o1", FLOW, request.input(), request.vars(),
                request.fingerprint(), true));
        assertThat(OrderCommands.start(request, "o1", FLOW, false)).isEqualTo(new OrderCommand.StartOrder("o1", FLOW,
                request.input(), request.vars(), null, false));
        // the version asked for is bound, not the one it resolved to
        assertThat(OrderCommands.start(startRequest(
                "{\"flowId\": \"f\", \"version\": 2, \"input\": {\"type\": \"reorder\"}}"), "o1", FLOW, true)
                .fingerprint()).isNotEqualTo(keyed.fingerprint());
    }

    @Test
    void a_mail_start_is_keyed_and_says_where_it_came_from() {
        StartRequest request = startRequest("{\"flowId\": \"f\", \"input\": {\"type\": \"reorder\"}}");
        assertThat(OrderCommands.mailStart(request, "o1", FLOW, "a@b.c", "orders@example.com"))
                .isEqualTo(new OrderCommand.StartOrder("o1", FLOW, request.input(), request.vars(),
                        request.fingerprint(), true, OrderSource.mail("a@b.c", "orders@example.com")));
    }

    @Test
    void a_batch_body_becomes_its_action() {
        Caller olga = new Caller("person", "olga@example.com", "operator");
        assertThat(OrderCommands.batchAction(olga, Json.object().put("action", "cancel").put("reason", " dup ")))
                .isEqualTo(new BatchAction.Cancel("dup"));
        assertThat(OrderCommands.batchAction(olga, Json.object().put("action", "deliver_event").put("event", "e")))
                .isEqualTo(new BatchAction.DeliverEvent("e", Json.object()));
        assertThat(OrderCommands.batchAction(olga, Json.object().put("action", "decide_approval").put("nodeId", "n")
                .put("decision", "approved"))).isEqualTo(new BatchAction.DecideApproval("n", "approved",
                "olga@example.com", null));
        assertThatThrownBy(() -> OrderCommands.batchAction(olga, Json.object().put("action", "nothing")))
                .isInstanceOf(ApiException.class).hasMessage("Unknown action");
        assertThat(OrderCommands.dismissIncident("o1", "o1:1", Json.object().put("note", " refunded ")))
                .isEqualTo(new OrderCommand.DismissIncident("o1", "o1:1", "refunded"));
    }
}
