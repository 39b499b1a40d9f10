package io.orderflow.schemas.commands;

import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.signing.Sha256;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.erdtman.jcs.JsonCanonicalizer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The fingerprint of a start ({@link OrderCommand.StartOrder#fingerprint}): SHA-256 (hex) of the RFC 8785 canonical
 * JSON of {@code {flowId, version, input, vars}}, so property order and number spelling do not matter. An
 * idempotent repeat with the same fingerprint replays the order; another fingerprint under the same key is refused.
 */
public final class StartFingerprint {

    private StartFingerprint() {
    }

    /** @param version the version asked for, or {@code null} for the latest published */
    public static String of(String flowId, Integer version, JsonNode input, JsonNode vars) {
        ObjectNode bound = Json.object();
        bound.put("flowId", flowId);
        if (version == null) {
            bound.putNull("version");
        } else {
            bound.put("version", version);
        }
        bound.set("input", input);
        bound.set("vars", vars);
        try {
            return Sha256.hex(new JsonCanonicalizer(Json.MAPPER.writeValueAsString(bound)).getEncodedUTF8());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
