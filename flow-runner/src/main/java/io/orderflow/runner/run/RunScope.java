package io.orderflow.runner.run;

import io.orderflow.schemas.json.Json;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/** The data templates and condition expressions see, as plain maps, lists, strings, numbers and booleans. */
public final class RunScope {

    private RunScope() {
    }

    public static Map<String, Object> of(RunInstance instance) {
        Map<String, Object> scope = new LinkedHashMap<>();
        scope.put("order", plain(instance.order));
        scope.put("vars", plain(instance.vars));
        scope.put("nodes", plain(instance.outputs));
        JsonNode meta = instance.order == null ? null : instance.order.get("meta");
        scope.put("input", meta == null ? Map.of() : plain(meta));
        return scope;
    }

    private static Object plain(JsonNode node) {
        return node == null ? Map.of() : Json.MAPPER.convertValue(node, Object.class);
    }
}
