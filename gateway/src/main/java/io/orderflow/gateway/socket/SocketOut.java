package io.orderflow.gateway.socket;

import io.orderflow.gateway.api.ApiException;
import io.orderflow.gateway.commands.CommandReplies;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.query.OrderView;
import org.springframework.web.reactive.socket.CloseStatus;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One message of the order socket to the client, or none ({@code json} null); a close status ends the socket after
 * it. The shapes are the socket's: {@code { type: "state", state }} and {@code { type: "error", error }} pushes, and
 * {@code { id, result }} or {@code { id, error, issues?, status? }} answers to calls (status: the agent's HTTP status of a refusal).
 */
record SocketOut(String json, CloseStatus close) {

    static final SocketOut CLIENT_LEFT = new SocketOut(null, CloseStatus.NORMAL);

    static SocketOut message(JsonNode json) {
        return new SocketOut(Json.write(json), null);
    }

    /** The push of the order's live state, {@code { type: "state", state }}. */
    static SocketOut state(OrderView state) {
        return new SocketOut(Json.write(new StatePush("state", state)), null);
    }

    /** The body of a state push. */
    record StatePush(String type, OrderView state) {
    }

    boolean ends() {
        return close != null;
    }

    /** A push of an error that is not an answer to a call. */
    static SocketOut pushedError(String message) {
        return message(Json.object().put("type", "error").put("error", message));
    }

    /** A call's result. */
    static SocketOut result(JsonNode id, JsonNode result) {
        ObjectNode body = Json.object();
        body.set("id", id);
        body.set("result", result);
        return message(body);
    }

    /** The agent's reply: its body as the result, or its error. */
    static SocketOut answer(JsonNode id, CommandReply reply) {
        JsonNode body = CommandReplies.body(reply);
        if (CommandReplies.accepted(reply)) {
            return result(id, body);
        }
        // the status too, so a page tells a conflict (409: e.g. a node no longer waiting) from a failure
        return message(errorBody(id, errorOf(body)).put("status", CommandReplies.status(reply)));
    }

    static SocketOut error(JsonNode id, String message) {
        return message(errorBody(id, message));
    }

    /** An {@link ApiException} as a call's error, with the validation issues when there are any. */
    static SocketOut error(JsonNode id, ApiException e) {
        ObjectNode body = errorBody(id, e.body().error());
        if (e.body().issues() != null && !e.body().issues().isEmpty()) {
            ArrayNode issues = body.putArray("issues");
            e.body().issues().forEach(issue -> issues.addObject().put("path", issue.path())
                    .put("message", issue.message()));
        }
        return message(body);
    }

    /** A call's error that also ends the socket with {@code close}. */
    static SocketOut errorAndClose(JsonNode id, String message, CloseStatus close) {
        return new SocketOut(Json.write(errorBody(id, message)), close);
    }

    static String errorOf(JsonNode body) {
        JsonNode error = body.get("error");
        return error != null && error.isString() ? error.asString() : "The order processor refused the call";
    }

    private static ObjectNode errorBody(JsonNode id, String message) {
        ObjectNode body = Json.object();
        body.set("id", id);
        return body.put("error", message);
    }
}
