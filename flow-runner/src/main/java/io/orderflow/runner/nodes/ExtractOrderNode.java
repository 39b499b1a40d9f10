package io.orderflow.runner.nodes;

import io.orderflow.schemas.json.Json;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code extract_order}: turns {@code documentText} (an email or purchase order) into order lines with a
 * deterministic parser, one line item per text line such as {@code 3 x WIDGET-1 Blue widget @ 12.50}
 * ({@code x} or {@code ×}; name and {@code @ price} optional). Lines the order already has are kept.
 * Branches: {@code ok}, {@code empty} (no lines at all). The model-backed parser ({@code AI_MODE=live}) is not built.
 */
public final class ExtractOrderNode implements Node {

    private static final Pattern LINE = Pattern.compile(
            "^\\s*(?:[-*•]\\s*)?(\\d+)\\s*(?:x|×|pcs?\\.?|units?)\\s+([A-Za-z0-9][A-Za-z0-9_-]*)"
                    + "(?:\\s+([^@]*?))?\\s*(?:@\\s*([0-9]+(?:\\.[0-9]+)?))?\\s*$");

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
        ArrayNode lines = parse(NodeContext.text(ctx.order().get("documentText"), ""));
        ctx.order().set("lines", lines);
        if (lines.isEmpty()) {
            return new NodeOutcome.Done("empty", output(lines, "document"), "No order lines found in the document");
        }
        return done(lines, "document", "Extracted " + lines.size() + " line(s) from the document");
    }

    /** Parses order lines out of free text; lines that do not look like an order line are skipped. */
    public static ArrayNode parse(String text) {
        ArrayNode lines = Json.MAPPER.createArrayNode();
        for (String row : text.split("\\R")) {
            Matcher m = LINE.matcher(row);
            if (!m.matches()) {
                continue;
            }
            ObjectNode line = lines.addObject();
            line.put("sku", m.group(2).toUpperCase());
            if (m.group(3) != null && !m.group(3).isBlank()) {
                line.put("name", m.group(3).strip());
            }
            line.put("qty", Integer.parseInt(m.group(1)));
            if (m.group(4) != null) {
                line.put("unitPrice", new java.math.BigDecimal(m.group(4)));
            }
        }
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
