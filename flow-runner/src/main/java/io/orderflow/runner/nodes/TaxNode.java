package io.orderflow.runner.nodes;

import io.orderflow.runner.money.Money;
import io.orderflow.schemas.json.Json;
import java.math.BigDecimal;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code tax}: {@code tax = subtotal × rate} (setting {@code rate}, a fraction, default {@code 0}); sets
 * {@code tax}, {@code total}, {@code fxRate} and {@code baseTotal} (USD) on the order.
 */
public final class TaxNode implements Node {

    @Override
    public String type() {
        return "tax";
    }

    @Override
    public NodeOutcome execute(NodeContext ctx) {
        ObjectNode order = ctx.order();
        BigDecimal subtotal = NodeContext.decimal(order.get("subtotal"), null);
        if (subtotal == null) {
            subtotal = BigDecimal.ZERO;
            for (JsonNode line : order.path("lines")) {
                subtotal = subtotal.add(NodeContext.decimal(line.get("unitPrice"), BigDecimal.ZERO)
                        .multiply(BigDecimal.valueOf(line.path("qty").asInt(1))));
            }
            subtotal = Money.cents(subtotal);
            order.put("subtotal", subtotal);
        }
        BigDecimal rate = NodeContext.decimal(ctx.settings().get("rate"), BigDecimal.ZERO);
        BigDecimal tax = Money.cents(subtotal.multiply(rate));
        BigDecimal total = subtotal.add(tax);
        order.put("tax", tax);
        order.put("total", total);
        order.put("fxRate", ctx.money().rate(ctx.currency()));
        order.put("baseTotal", ctx.money().toUsd(total, ctx.currency()));
        ObjectNode out = Json.object();
        out.put("rate", rate);
        out.put("tax", tax);
        out.put("total", total);
        return new NodeOutcome.Done(null, out, "Tax " + Money.format(tax) + ", total "
                + Money.format(total, ctx.currency()));
    }
}
