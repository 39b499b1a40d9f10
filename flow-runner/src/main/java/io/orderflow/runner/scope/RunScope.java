package io.orderflow.runner.scope;

import io.orderflow.schemas.json.Json;
import java.util.AbstractMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * The data templates and condition expressions see, as plain maps, lists, strings, numbers and booleans:
 * {@code order}, {@code vars}, {@code nodes} and {@code input}. Each part is converted from the run's JSON when it is
 * first looked at, so a title such as {@code Price order {{order.id}}} converts the order only, not the outputs of
 * every node so far.
 */
public final class RunScope extends AbstractMap<String, Object> {

    /** In the order the scope has always listed them. */
    private static final List<String> NAMES = List.of("order", "vars", "nodes", "input");

    private final JsonNode order;
    private final JsonNode vars;
    private final JsonNode outputs;
    private final Map<String, Object> converted = new HashMap<>(8);

    private RunScope(JsonNode order, JsonNode vars, JsonNode outputs) {
        this.order = order;
        this.vars = vars;
        this.outputs = outputs;
    }

    /** The scope of a run with this order, these vars and these node outputs by node id. */
    public static Map<String, Object> of(JsonNode order, JsonNode vars, JsonNode outputs) {
        return new RunScope(order, vars, outputs);
    }

    @Override
    public boolean containsKey(Object key) {
        return NAMES.contains(key);
    }

    @Override
    public Object get(Object key) {
        return key instanceof String name && NAMES.contains(name)
                ? converted.computeIfAbsent(name, this::convert) : null;
    }

    @Override
    public Set<Entry<String, Object>> entrySet() {
        Map<String, Object> all = new LinkedHashMap<>();
        NAMES.forEach(name -> all.put(name, get(name)));
        return all.entrySet();
    }

    private Object convert(String name) {
        return switch (name) {
            case "order" -> plain(order);
            case "vars" -> plain(vars);
            case "nodes" -> plain(outputs);
            default -> {
                JsonNode meta = order == null ? null : order.get("meta");
                yield meta == null ? Map.of() : plain(meta);
            }
        };
    }

    private static Object plain(JsonNode node) {
        return node == null ? Map.of() : Json.MAPPER.convertValue(node, Object.class);
    }
}
