package io.orderflow.gateway.commands;

import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.RejectionKind;
import io.orderflow.schemas.json.Json;
import org.springframework.http.HttpStatus;
import tools.jackson.databind.JsonNode;

/**
 * How the gateway reads the order's agent's reply to a command: the one place a {@link RejectionKind} becomes an HTTP
 * status, for every channel that answers with it (the REST routes, the order socket, signed inbound events, mail
 * intake, the ops chat, batches).
 */
public final class CommandReplies {

    private CommandReplies() {
    }

    /** The HTTP status a refusal of {@code kind} is answered with. */
    public static HttpStatus status(RejectionKind kind) {
        return switch (kind) {
            case INVALID_ARGUMENT -> HttpStatus.BAD_REQUEST;
            case NOT_FOUND -> HttpStatus.NOT_FOUND;
            case INVALID_STATE -> HttpStatus.CONFLICT;
            case PRECONDITION_FAILED -> HttpStatus.PRECONDITION_FAILED;
            // the Idempotency-Key draft's answer to a key reused with another body
            case ALREADY_EXISTS, INCOMPATIBLE, TOO_LARGE -> HttpStatus.UNPROCESSABLE_CONTENT;
            case PROCESSING_ERROR -> HttpStatus.INTERNAL_SERVER_ERROR;
        };
    }

    /**
     * The HTTP status to answer {@code reply} with: its refusal's, or the status of a command accepted (200, 201). A
     * refusal from an agent that sends no kind is answered with the status it sends.
     */
    public static int status(CommandReply reply) {
        return reply.kind() != null ? status(reply.kind()).value() : reply.status();
    }

    /** Whether the agent accepted the command (it may still have changed nothing: a replay, a cancel too late). */
    public static boolean accepted(CommandReply reply) {
        int status = status(reply);
        return status >= 200 && status < 300;
    }

    /** The reply's body, {@code {}} when it has none. */
    public static JsonNode body(CommandReply reply) {
        return reply.body() == null ? Json.object() : reply.body();
    }
}
