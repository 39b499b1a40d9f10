package io.orderflow.runner.nodes;

import io.orderflow.runner.connectors.PaymentConnector;
import io.orderflow.runner.money.Money;
import io.orderflow.schemas.json.Json;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code commerce.charge}: charges the order total in one step (authorize and capture), e.g. a card on file.
 * Branches {@code ok}, {@code declined} ({@code meta.simulate: payment_declined}). Sends {@code order.paid} on
 * {@code ok}. Compensation refunds the charge.
 */
public final class ChargeNode implements Node {

    @Override
    public String type() {
        return "commerce.charge";
    }

    @Override
    public List<String> branches() {
        return List.of("ok", "declined");
    }

    @Override
    public NodeOutcome execute(NodeContext ctx) {
        PaymentConnector payment = ctx.connectors().payment();
        ObjectNode out = Json.object();
        out.put("amount", ctx.amount());
        out.put("currency", ctx.currency());
        PaymentConnector.Result auth = payment.authorize(ctx.call(), ctx.amount(), ctx.currency());
        if (!auth.approved()) {
            out.put("declined", true);
            out.put("message", auth.message());
            return new NodeOutcome.Done("declined", out, auth.message());
        }
        PaymentConnector.Result capture = payment.capture(ctx.call(), auth.id());
        out.put("paymentId", capture.id());
        return new NodeOutcome.Done("ok", out, "Charged " + Money.format(ctx.amount(), ctx.currency()));
    }

    @Override
    public String eventOn(String branch, JsonNode output) {
        return "ok".equals(branch) ? "order.paid" : null;
    }

    @Override
    public void compensate(NodeContext ctx, JsonNode output) {
        PaymentCompensation.undo(ctx, output);
    }
}
