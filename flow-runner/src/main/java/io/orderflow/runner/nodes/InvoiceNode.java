package io.orderflow.runner.nodes;

import io.orderflow.runner.money.Money;
import io.orderflow.schemas.json.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code commerce.invoice}: issues an invoice for the order total, due in setting {@code dueDays} (default 30).
 * Sends {@code order.invoiced}. Compensation voids the invoice.
 */
public final class InvoiceNode implements Node {

    @Override
    public String type() {
        return "commerce.invoice";
    }

    @Override
    public NodeOutcome execute(NodeContext ctx) {
        int dueDays = ctx.settings().path("dueDays").asInt(30);
        String invoiceId = ctx.connectors().invoicing().issue(ctx.call(), ctx.amount(), ctx.currency(), dueDays);
        ObjectNode out = Json.object();
        out.put("invoiceId", invoiceId);
        out.put("amount", ctx.amount());
        out.put("currency", ctx.currency());
        out.put("dueDays", dueDays);
        return new NodeOutcome.Done(null, out, "Invoice " + invoiceId + " for "
                + Money.format(ctx.amount(), ctx.currency()));
    }

    @Override
    public String eventOn(String branch, JsonNode output) {
        return "order.invoiced";
    }

    @Override
    public void compensate(NodeContext ctx, JsonNode output) {
        ctx.connectors().invoicing().voidInvoice(ctx.call(), NodeContext.text(output.get("invoiceId"), ""));
    }
}
