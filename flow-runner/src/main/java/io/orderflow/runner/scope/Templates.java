package io.orderflow.runner.scope;

import com.samskivert.mustache.Mustache;
import com.samskivert.mustache.Template;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Renders node titles and End reasons such as {@code Approve order {{order.id}}} with Mustache (jmustache).
 * Missing values render as empty text, never as an error: a title must not fail a run.
 */
public final class Templates {

    private static final Mustache.Compiler COMPILER = Mustache.compiler().escapeHTML(false).defaultValue("");
    private static final Map<String, Template> CACHE = new ConcurrentHashMap<>();

    private Templates() {
    }

    /** Renders {@code template} against {@code scope} (maps and lists, as {@link RunScope} builds them). */
    public static String render(String template, Map<String, Object> scope) {
        return render(template, () -> scope);
    }

    /** Renders {@code template}, asking for the scope only when the template has a tag: most titles are plain text. */
    public static String render(String template, Supplier<Map<String, Object>> scope) {
        if (template == null || !template.contains("{{")) {
            return template;
        }
        return CACHE.computeIfAbsent(template, COMPILER::compile).execute(scope.get());
    }
}
