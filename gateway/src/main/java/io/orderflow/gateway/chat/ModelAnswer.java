package io.orderflow.gateway.chat;

import io.orderflow.schemas.json.Json;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One model turn (rule 2): {@code { action: 'reply' | 'tool', tool?, args?, reply? }}.
 *
 * @param tool  the tool to run when {@code action} is {@code tool}
 * @param args  the tool's arguments (an object, possibly empty)
 * @param reply the answer to the person when {@code action} is {@code reply}
 */
public record ModelAnswer(String action, String tool, ObjectNode args, String reply) {

    public static final String REPLY = "reply";
    public static final String TOOL = "tool";

    public static ModelAnswer reply(String text) {
        return new ModelAnswer(REPLY, null, null, text);
    }

    public static ModelAnswer tool(String tool, ObjectNode args) {
        return new ModelAnswer(TOOL, tool, args == null ? Json.object() : args, null);
    }

    public boolean isReply() {
        return REPLY.equals(action);
    }

    /** Thrown for an answer that is not the JSON of a valid turn: the heuristic takes over. */
    public static final class Malformed extends RuntimeException {
        Malformed(String message) {
            super(message);
        }
    }

    /** Parses the model's content; anything but a valid reply or a call of a known tool is {@link Malformed}. */
    public static ModelAnswer parse(String content) {
        if (content == null || content.isBlank()) {
            throw new Malformed("the model answered nothing");
        }
        JsonNode json;
        try {
            json = Json.MAPPER.readTree(content);
        } catch (JacksonException e) {
            throw new Malformed("the model's answer is not JSON");
        }
        if (json == null || !json.isObject()) {
            throw new Malformed("the model's answer is not a JSON object");
        }
        String action = text(json, "action");
        if (REPLY.equals(action)) {
            String reply = text(json, "reply");
            if (reply == null || reply.isBlank()) {
                throw new Malformed("a reply without reply text");
            }
            return reply(reply);
        }
        if (TOOL.equals(action)) {
            String tool = text(json, "tool");
            if (tool == null || !ChatTools.NAMES.contains(tool)) {
                throw new Malformed("an unknown tool: " + tool);
            }
            JsonNode args = json.get("args");
            if (args != null && !args.isNull() && !args.isObject()) {
                throw new Malformed("args is not an object");
            }
            return tool(tool, args instanceof ObjectNode object ? object : Json.object());
        }
        throw new Malformed("an unknown action: " + action);
    }

    private static String text(JsonNode json, String field) {
        JsonNode value = json.get(field);
        return value != null && value.isString() ? value.asString() : null;
    }
}
