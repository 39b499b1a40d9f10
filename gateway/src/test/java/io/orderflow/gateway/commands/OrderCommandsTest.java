package io.orderflow.gateway.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.gateway.commands.OrderCommands.Channel;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.commands.OrderCommand;
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
}
