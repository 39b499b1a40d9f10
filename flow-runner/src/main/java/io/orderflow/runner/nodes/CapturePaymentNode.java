package io.orderflow.runner.nodes;

import io.orderflow.runner.connectors.PaymentConnector;
import io.orderflow.runner.money.Money;
import io.orderflow.schemas.json.Json;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code commerce.capture_payment}: captures the order total. It captures an authorization the order already holds
 * (from an earlier {@code capture_payment} with {@code authorizeOnly: true}), else authorizes and captures now.
 * Setting {@code authorizeOnly} (default false) only authorizes: the authorization stays open until captured, and a
 * cancel voids it. Branches {@code ok}, {@code declined} ({@code meta.simulate: payment_declined}). Sends
 * {@code order.paid} on {@code ok}, an authorization alone included. Compensation refunds a capture or voids an open
 * authorization.
 */
public final class CapturePaymentNode implements Node {

    @Override
    public String type() {
        return "commerce.capture_payment";
    }

    @Override
    public List<String> branches() {
        return List.of("ok", "declined");
    }

    @Override
    public NodeOutcome execute(NodeContext ctx) {
        PaymentConnector payment = ctx.connectors().payment();
        boolean authorizeOnly = ctx.settings().path("authorizeOnly").asBoolean(false);
        ObjectNode out = Json.object();
        out.put("amount", ctx.amount());
        out.put("currency", ctx.currency());
        var open = ctx.openHolds("authorization");
        String authorizationId;
        if (!open.isEmpty() && !authorizeOnly) {
            authorizationId = open.getFirst().id();
            ctx.close(open.getFirst());
        } else {
            PaymentConnector.Result auth = payment.authorize(ctx.call(), ctx.amount(), ctx.currency());
            if (!auth.approved()) {
                out.put("declined", true);
                out.put("message", auth.message());
                return new NodeOutcome.Done("declined", out, auth.message());
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

    @Override
    public String eventOn(String branch, JsonNode output) {
        // the contract: order.paid is sent when "commerce.capture_payment finishes on its ok branch", an
        // authorize-only step included
        return "ok".equals(branch) ? "order.paid" : null;
    }

    @Override
    public void compensate(NodeContext ctx, JsonNode output) {
        PaymentCompensation.undo(ctx, output);
    }
}
