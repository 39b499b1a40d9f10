package io.orderflow.runner.nodes;

import io.orderflow.runner.connectors.PaymentConnector;
import io.orderflow.runner.money.Money;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code commerce.charge}: charges the order total in one step (authorize and capture), e.g. a card on file.
 * Branches {@code ok}, {@code declined} ({@code meta.simulate: payment_declined}). Sends {@code order.paid} on
 * {@code ok}. Compensation refunds the charge.
 */
public final class ChargeNode extends PaymentNode {

    @Override
    public String type() {
        return "commerce.charge";
    }

    @Override
    public NodeOutcome execute(NodeContext ctx) {
        PaymentConnector payment = ctx.connectors().payment();
        ObjectNode out = amountOutput(ctx);
        PaymentConnector.Result auth = payment.authorize(ctx.call(), ctx.amount(), ctx.currency());
        if (!auth.approved()) {
            return declined(out, auth);
        }
        PaymentConnector.Result capture = payment.capture(ctx.call(), auth.id());
        out.put("paymentId", capture.id());
        return new NodeOutcome.Done("ok", out, "Charged " + Money.format(ctx.amount(), ctx.currency()));
    }
}
