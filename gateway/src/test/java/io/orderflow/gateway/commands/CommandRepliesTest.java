package io.orderflow.gateway.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.RejectionKind;
import io.orderflow.schemas.json.Json;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class CommandRepliesTest {

    @Test
    void each_kind_of_refusal_is_answered_with_its_status() {
        Map<RejectionKind, Integer> statuses = Arrays.stream(RejectionKind.values())
                .collect(Collectors.toMap(kind -> kind, kind -> CommandReplies.status(kind).value()));
        assertThat(statuses).isEqualTo(Map.of(
                RejectionKind.INVALID_ARGUMENT, 400,
                RejectionKind.NOT_FOUND, 404,
                RejectionKind.INVALID_STATE, 409,
                RejectionKind.PRECONDITION_FAILED, 412,
                RejectionKind.ALREADY_EXISTS, 422,
                RejectionKind.INCOMPATIBLE, 422,
                RejectionKind.TOO_LARGE, 422,
                RejectionKind.PROCESSING_ERROR, 500));
    }

    @Test
    void a_refusal_is_answered_from_its_kind_and_an_accepted_command_or_a_reply_without_kind_with_its_status() {
        var error = Json.object().put("error", "Order ord_1 not found");
        // the kind decides, whatever status the agent wrote beside it
        CommandReply refused = new CommandReply("c", "ord_1", 0, RejectionKind.NOT_FOUND, error);
        assertThat(CommandReplies.status(refused)).isEqualTo(404);
        assertThat(CommandReplies.accepted(refused)).isFalse();
        // an agent that sends no kind
        assertThat(CommandReplies.status(new CommandReply("c", "ord_1", 409, error))).isEqualTo(409);
        CommandReply started = new CommandReply("c", "ord_1", 201, null);
        assertThat(CommandReplies.status(started)).isEqualTo(201);
        assertThat(CommandReplies.accepted(started)).isTrue();
        assertThat(CommandReplies.body(started)).isEqualTo(Json.object());
    }
}
