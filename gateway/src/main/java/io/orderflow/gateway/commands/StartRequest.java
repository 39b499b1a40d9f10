package io.orderflow.gateway.commands;

import io.orderflow.schemas.commands.OrderCommand.StartOrder;
import io.orderflow.schemas.commands.StartFingerprint;
import io.orderflow.schemas.json.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A start request that passed its schema, with defaults applied: {@code currency} USD and {@code vars} {}. The REST
 * route reads one from its body, mail intake from the body it builds out of a mail; {@link OrderCommands} turns it
 * into the start command.
 *
 * @param version the version asked for, or {@code null} for the latest published
 */
public record StartRequest(String flowId, Integer version, ObjectNode input, ObjectNode vars) {

    public static StartRequest of(JsonNode body) {
        ObjectNode input = (ObjectNode) body.get("input").deepCopy();
        if (!input.has("currency")) {
            input.put("currency", StartOrder.DEFAULT_CURRENCY);
        }
        JsonNode vars = body.get("vars");
        JsonNode version = body.get("version");
        return new StartRequest(body.get("flowId").asString(),
                version == null ? null : version.asInt(),
                input,
                vars == null ? Json.object() : (ObjectNode) vars.deepCopy());
    }

    /**
     * SHA-256 (hex) of the RFC 8785 canonical JSON of {@code {flowId, version, input, vars}}, so property order and
     * number spelling do not matter; {@code version} is the one asked for ({@code null} when none was).
     */
    public String fingerprint() {
        return StartFingerprint.of(flowId, version, input, vars);
    }
}
