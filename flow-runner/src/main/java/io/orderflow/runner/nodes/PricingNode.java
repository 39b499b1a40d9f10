package io.orderflow.runner.nodes;

import io.orderflow.runner.money.Money;
import io.orderflow.schemas.json.Json;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code pricing}: fills a missing {@code unitPrice} from the USD price list converted into the order's currency
 * (a line that has one keeps it, written with two decimals) and sets {@code subtotal} and {@code fxRate} on the order. A SKU with neither a
 * price nor a price-list entry fails the run ({@code No price for SKU ...}); no retry.
 */
public final class PricingNode implements Node {

    @Override
    public String type() {
        return "pricing";
    }

    @Override
    public NodeOutcome execute(NodeContext ctx) {
        String currency = ctx.currency();
        ArrayNode lines = ctx.order().get("lines") instanceof ArrayNode a ? a : ctx.order().putArray("lines");
        BigDecimal subtotal = BigDecimal.ZERO;
        List<String> filled = new ArrayList<>();
        for (JsonNode node : lines) {
            ObjectNode line = (ObjectNode) node;
            String sku = NodeContext.text(line.get("sku"), "");
            BigDecimal price = NodeContext.decimal(line.get("unitPrice"), null);
            if (price == null) {
                price = ctx.money().price(sku, currency)
                        .orElseThrow(() -> new NodeFailure("No price for SKU " + sku + " in the price list"));
                filled.add(sku);
            } else if (price.scale() < Money.SCALE) {
                // a given price is money too: 19.5 is kept as 19.50 (more decimals than cents are kept as given)
                price = price.setScale(Money.SCALE);
            }
            line.put("unitPrice", price);
            int qty = line.path("qty").asInt(1);
            subtotal = subtotal.add(price.multiply(BigDecimal.valueOf(qty)));
        }
        subtotal = Money.cents(subtotal);
        ctx.order().put("subtotal", subtotal);
        ctx.order().put("fxRate", ctx.money().rate(currency));
        ObjectNode out = Json.object();
        out.put("subtotal", subtotal);
        out.put("currency", currency);
        out.set("pricedFromList", Json.tree(filled));
        return new NodeOutcome.Done(null, out, "Subtotal " + Money.format(subtotal, currency)
                + (filled.isEmpty() ? "" : " (" + filled.size() + " price(s) from the price list)"));
    }
}
