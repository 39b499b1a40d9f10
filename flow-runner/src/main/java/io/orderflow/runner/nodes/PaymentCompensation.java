package io.orderflow.runner.nodes;

import tools.jackson.databind.JsonNode;

/** Undoing a payment node: refund what it captured, void what it only authorized. */
final class PaymentCompensation {

    private PaymentCompensation() {
    }

    static void undo(NodeContext ctx, JsonNode output) {
        if (output == null) {
            return;
        }
        String paymentId = NodeContext.text(output.get("paymentId"), null);
        if (paymentId != null) {
            var result = ctx.connectors().payment().refund(ctx.call(), paymentId, ctx.amount(), ctx.currency());
            if (!result.approved()) {
                throw new IllegalStateException(result.message());
            }
            if (ctx.simulate().contains("compensation_failed")) {
                throw new IllegalStateException("Could not refund " + paymentId + " (simulated compensation_failed)");
            }
            return;
        }
        for (var hold : ctx.openHolds("authorization")) {
            if (hold.nodeId().equals(ctx.nodeId())) {
                ctx.connectors().payment().voidAuthorization(ctx.call(), hold.id());
                ctx.close(hold);
            }
        }
    }
}
