package io.orderflow.schemas.commands;

import tools.jackson.databind.JsonNode;

/**
 * The processor's decision on a command, written in the same transaction as the state change it caused.
 *
 * @param status the HTTP status of a command the agent accepted (200, or 201 for a start). For a rejection it is the
 *               status a gateway that reads no {@code kind} answers with; a gateway answers a rejection from its kind
 * @param kind   why the command was refused; {@code null} when it was not
 * @param body   the HTTP response body ({@code { error }} for a rejection, with {@code issues} for a payload at fault)
 */
public record CommandReply(String correlationId, String orderId, int status, RejectionKind kind, JsonNode body) {

    /** A command the agent accepted (or answered without a change: a replay, an event nobody waits for). */
    public CommandReply(String correlationId, String orderId, int status, JsonNode body) {
        this(correlationId, orderId, status, null, body);
    }
}
