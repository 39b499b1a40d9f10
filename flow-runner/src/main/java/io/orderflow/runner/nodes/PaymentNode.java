package io.orderflow.runner.nodes;

import io.orderflow.runner.connectors.PaymentConnector;
import io.orderflow.schemas.json.Json;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What the nodes that take the order's payment share: branches {@code ok} and {@code declined}, {@code order.paid}
 * sent on {@code ok}, the output that starts with the amount, the declined finish, and the compensation that refunds
 * what a node captured or voids what it only authorized.
 */
abstract sealed class PaymentNode implements Node permits CapturePaymentNode, ChargeNode {

    @Override
    public final List<String> branches() {
        return List.of("ok", "declined");
    }

    @Override
    public final String eventOn(String branch, JsonNode output) {
        // the contract: order.paid is sent when "commerce.capture_payment finishes on its ok branch", an
        // authorize-only step included; commerce.charge sends it on ok too
        return "ok".equals(branch) ? "order.paid" : null;
    }

    @Override
    public final void compensate(NodeContext ctx, JsonNode output) {
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

    /** The output a payment starts with: the order total it takes. */
    static ObjectNode amountOutput(NodeContext ctx) {
        ObjectNode out = Json.object();
        out.put("amount", ctx.amount());
        out.put("currency", ctx.currency());
        return out;
    }

    /** A declined authorization's finish: branch {@code declined}, the processor's message in output and report. */
    static NodeOutcome.Done declined(ObjectNode out, PaymentConnector.Result auth) {
        out.put("declined", true);
        out.put("message", auth.message());
        return new NodeOutcome.Done("declined", out, auth.message());
    }
}
