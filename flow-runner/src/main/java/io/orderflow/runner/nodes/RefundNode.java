package io.orderflow.runner.nodes;

import io.orderflow.runner.money.Money;
import io.orderflow.schemas.json.Json;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code commerce.refund}: refunds setting {@code amount} (default the order total) of the order's latest payment
 * (the {@code paymentId} of its charge or capture; without one the run fails). Branches {@code ok}, {@code failed}
 * ({@code meta.simulate: refund_failed}). Sends {@code order.refunded} on {@code ok}.
 */
public final class RefundNode implements Node {

    @Override
    public String type() {
        return "commerce.refund";
    }

    @Override
    public List<String> branches() {
        return List.of("ok", "failed");
    }

    @Override
    public NodeOutcome execute(NodeContext ctx) {
        // refund the payment the order's charge or capture took: a processor only refunds a payment it knows
        String paymentId = ctx.lastPaymentId().orElseThrow(() -> new NodeFailure(
                "Nothing to refund: no charge or capture of the order took a payment"));
        var amount = NodeContext.decimal(ctx.settings().get("amount"), ctx.amount());
        var result = ctx.connectors().payment().refund(ctx.call(), paymentId, amount, ctx.currency());
        ObjectNode out = Json.object();
        out.put("refundId", result.id());
        out.put("paymentId", paymentId);
        out.put("amount", amount);
        out.put("currency", ctx.currency());
        out.put("refunded", result.approved());
        return new NodeOutcome.Done(result.approved() ? "ok" : "failed", out, result.approved()
                ? "Refunded " + Money.format(amount, ctx.currency()) + " of " + paymentId : result.message());
    }

    @Override
    public String eventOn(String branch, JsonNode output) {
        return "ok".equals(branch) ? "order.refunded" : null;
    }

    @Override
    public void compensate(NodeContext ctx, JsonNode output) {
        // a refund gives money back; undoing it would charge the customer again, so a rollback leaves it
    }
}
