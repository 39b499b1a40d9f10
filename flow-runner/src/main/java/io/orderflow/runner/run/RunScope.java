package io.orderflow.runner.run;

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

    private final RunInstance instance;
    private final Map<String, Object> converted = new HashMap<>(8);

    private RunScope(RunInstance instance) {
        this.instance = instance;
    }

    public static Map<String, Object> of(RunInstance instance) {
        return new RunScope(instance);
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
            case "order" -> plain(instance.order);
            case "vars" -> plain(instance.vars);
            case "nodes" -> plain(instance.outputs);
            default -> {
                JsonNode meta = instance.order == null ? null : instance.order.get("meta");
                yield meta == null ? Map.of() : plain(meta);
            }
        };
    }

    private static Object plain(JsonNode node) {
        return node == null ? Map.of() : Json.MAPPER.convertValue(node, Object.class);
    }
}
