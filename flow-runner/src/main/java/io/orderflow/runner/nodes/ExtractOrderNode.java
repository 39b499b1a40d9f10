package io.orderflow.runner.nodes;

import io.orderflow.schemas.json.Json;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code extract_order}: turns {@code documentText} (an email or purchase order) into order lines with a
 * deterministic parser ({@link OrderLineScanner}, linear in the text's length), one line item per text line such as
 * {@code 3 x WIDGET-1 Blue widget @ 12.50} ({@code x} or {@code ×}; name and {@code @ price} optional). Lines the
 * order already has are kept.
 * Branches: {@code ok}, {@code empty} (no lines at all). The model-backed parser ({@code AI_MODE=live}) is not built.
 */
public final class ExtractOrderNode implements Node {

    @Override
    public String type() {
        return "extract_order";
    }

    @Override
    public List<String> branches() {
        return List.of("ok", "empty");
    }

    @Override
    public NodeOutcome execute(NodeContext ctx) {
        ArrayNode existing = ctx.order().get("lines") instanceof ArrayNode lines ? lines : null;
        if (existing != null && !existing.isEmpty()) {
            return done(existing, "input", "Kept " + existing.size() + " line(s) from the order input");
        }
        ArrayNode lines = parse(ctx.documentText());
        ctx.order().set("lines", lines);
        if (lines.isEmpty()) {
            return new NodeOutcome.Done("empty", output(lines, "document"), "No order lines found in the document");
        }
        return done(lines, "document", "Extracted " + lines.size() + " line(s) from the document");
    }

    /** Parses order lines out of free text; lines that do not look like an order line are skipped. */
    public static ArrayNode parse(String text) {
        ArrayNode lines = Json.MAPPER.createArrayNode();
        Arrays.stream(text.split("\\R")).forEach(row -> OrderLineScanner.scan(row).ifPresent(scanned -> {
            ObjectNode line = lines.addObject();
            line.put("sku", scanned.sku().toUpperCase(Locale.ROOT));
            if (scanned.name() != null) {
                line.put("name", scanned.name());
            }
            line.put("qty", scanned.qty());
            if (scanned.unitPrice() != null) {
                line.put("unitPrice", scanned.unitPrice());
            }
        }));
        return lines;
    }

    private static NodeOutcome.Done done(ArrayNode lines, String source, String summary) {
        return new NodeOutcome.Done("ok", output(lines, source), summary);
    }

    private static ObjectNode output(ArrayNode lines, String source) {
        ObjectNode out = Json.object();
        out.put("source", source);
        out.put("lineCount", lines.size());
        out.set("lines", lines.deepCopy());
        return out;
    }
}
