package io.orderflow.runner.nodes;

import io.orderflow.schemas.json.Json;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code policy}: checks rules (setting {@code rules}, a list of {@code {rule, limit?}}) and branches {@code pass} or
 * {@code fail}. Rules: {@code no_po_box} (no P.O. box in {@code meta.shipTo}); {@code credit_limit} (the customer's
 * {@code vars.creditUsed} plus this order's USD total stay within {@code limit}); {@code max_total} (the order total,
 * in its currency, stays within {@code limit}).
 */
public final class PolicyNode implements Node {

    private static final Pattern PO_BOX = Pattern.compile("\\bp\\.?\\s*o\\.?\\s*box\\b|\\bpost\\s+office\\s+box\\b");

    @Override
    public String type() {
        return "policy";
    }

    @Override
    public List<String> branches() {
        return List.of("pass", "fail");
    }

    @Override
    public NodeOutcome execute(NodeContext ctx) {
        List<String> violations = new ArrayList<>();
        for (JsonNode rule : ctx.settings().path("rules")) {
            String name = NodeContext.text(rule.get("rule"), "");
            BigDecimal limit = NodeContext.decimal(rule.get("limit"), null);
            switch (name) {
                case "no_po_box" -> {
                    String shipTo = NodeContext.text(ctx.meta().get("shipTo"), "").toLowerCase(Locale.ROOT);
                    if (PO_BOX.matcher(shipTo).find()) {
                        violations.add("Cannot ship to a P.O. box");
                    }
                }
                case "credit_limit" -> {
                    BigDecimal used = NodeContext.decimal(ctx.vars().get("creditUsed"), BigDecimal.ZERO);
                    BigDecimal base = NodeContext.decimal(ctx.order().get("baseTotal"), ctx.amount());
                    if (limit != null && used.add(base).compareTo(limit) > 0) {
                        violations.add("Credit limit of " + limit + " USD exceeded");
                    }
                }
                case "max_total" -> {
                    if (limit != null && ctx.amount().compareTo(limit) > 0) {
                        violations.add("Order total above " + limit + " " + ctx.currency());
                    }
                }
                default -> throw new NodeFailure("Unknown policy rule " + name);
            }
        }
        ObjectNode out = Json.object();
        out.put("passed", violations.isEmpty());
        out.set("violations", Json.tree(violations));
        return violations.isEmpty()
                ? new NodeOutcome.Done("pass", out, "All policy rules passed")
                : new NodeOutcome.Done("fail", out, String.join("; ", violations));
    }
}
