package io.orderflow.gateway.orders;

import io.orderflow.schemas.commands.OrderCommand.StartOrder;
import io.orderflow.schemas.commands.StartFingerprint;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.json.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A start request that passed its schema, with defaults applied: {@code currency} USD and {@code vars} {}.
 *
 * @param version the version asked for, or {@code null} for the latest published
 */
public record StartRequest(String flowId, Integer version, ObjectNode input, ObjectNode vars) {

    public static StartRequest of(JsonNode body) {
        ObjectNode input = (ObjectNode) body.get("input").deepCopy();
        if (!input.has("currency")) {
            input.put("currency", "USD");
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

    /**
     * The start command. Only a keyed start ({@code idempotent}) carries the fingerprint: a repeat can reach the same
     * order only through its {@code Idempotency-Key}, while a start without one gets a new random id, which nothing
     * repeats, so canonicalising and hashing its body would be work for nothing.
     */
    public StartOrder command(String orderId, FlowVersion flow, boolean idempotent) {
        return new StartOrder(orderId, flow, input, vars, idempotent ? fingerprint() : null, idempotent);
    }
}
