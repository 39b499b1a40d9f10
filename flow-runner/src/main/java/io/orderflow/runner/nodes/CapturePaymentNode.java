package io.orderflow.runner.nodes;

import io.orderflow.runner.connectors.PaymentConnector;
import io.orderflow.runner.money.Money;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code commerce.capture_payment}: captures the order total. It captures an authorization the order already holds
 * (from an earlier {@code capture_payment} with {@code authorizeOnly: true}), else authorizes and captures now.
 * Setting {@code authorizeOnly} (default false) only authorizes: the authorization stays open until captured, and a
 * cancel voids it. Branches {@code ok}, {@code declined} ({@code meta.simulate: payment_declined}). Sends
 * {@code order.paid} on {@code ok}, an authorization alone included. Compensation refunds a capture or voids an open
 * authorization.
 */
public final class CapturePaymentNode extends PaymentNode {

    @Override
    public String type() {
        return "commerce.capture_payment";
    }

    @Override
    public NodeOutcome execute(NodeContext ctx) {
        PaymentConnector payment = ctx.connectors().payment();
        boolean authorizeOnly = ctx.settings().path("authorizeOnly").asBoolean(false);
        ObjectNode out = amountOutput(ctx);
        var open = ctx.openHolds("authorization");
        String authorizationId;
        if (!open.isEmpty() && !authorizeOnly) {
            authorizationId = open.getFirst().id();
            ctx.close(open.getFirst());
        } else {
            PaymentConnector.Result auth = payment.authorize(ctx.call(), ctx.amount(), ctx.currency());
            if (!auth.approved()) {
                return declined(out, auth);
            }
            authorizationId = auth.id();
            if (authorizeOnly) {
                ctx.hold("authorization", authorizationId);
                out.put("authorizationId", authorizationId);
                out.put("captured", false);
                return new NodeOutcome.Done("ok", out, "Authorized " + Money.format(ctx.amount(), ctx.currency()));
            }
        }
        PaymentConnector.Result capture = payment.capture(ctx.call(), authorizationId);
        out.put("authorizationId", authorizationId);
        out.put("paymentId", capture.id());
        out.put("captured", true);
        return new NodeOutcome.Done("ok", out, "Captured " + Money.format(ctx.amount(), ctx.currency()));
    }
}
