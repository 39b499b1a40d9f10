package io.orderflow.runner.connectors;

import java.math.BigDecimal;

/** Payments: {@code payment_declined} declines authorizations, {@code refund_failed} fails refunds. */
public final class MockPayment implements PaymentConnector {

    @Override
    public Result authorize(ConnectorCall call, BigDecimal amount, String currency) {
        String id = call.ref("auth");
        if (call.simulates("payment_declined")) {
            return new Result(false, id, "Card declined (simulated payment_declined)");
        }
        return new Result(true, id, "Authorized " + amount + " " + currency);
    }

    @Override
    public Result capture(ConnectorCall call, String authorizationId) {
        return new Result(true, call.ref("pay"), "Captured " + authorizationId);
    }

    @Override
    public void voidAuthorization(ConnectorCall call, String authorizationId) {
        Simulated.failCompensationIfAsked(call, "void authorization " + authorizationId);
    }

    @Override
    public Result refund(ConnectorCall call, String paymentId, BigDecimal amount, String currency) {
        String id = call.ref("refund");
        if (call.simulates("refund_failed")) {
            return new Result(false, id, "Refund rejected by the processor (simulated refund_failed)");
        }
        return new Result(true, id, "Refunded " + amount + " " + currency);
    }
}
