package io.orderflow.schemas.commands;

import tools.jackson.databind.JsonNode;

/**
 * The processor's decision on a command, written in the same transaction as the state change it caused.
 *
 * @param status the HTTP status the gateway answers with
 * @param body   the HTTP response body ({@code { error }} for a rejection)
 */
public record CommandReply(String correlationId, String orderId, int status, JsonNode body) {
}
