package io.orderflow.runner.connectors;

import java.math.BigDecimal;

/** Takes money: authorize, capture, void, refund. Every method is idempotent on the reference it returns or gets. */
public interface PaymentConnector {

    /** Authorizes {@code amount}; a declined authorization returns {@code approved == false}. */
    Result authorize(ConnectorCall call, BigDecimal amount, String currency);

    /** Captures an authorization (in full). */
    Result capture(ConnectorCall call, String authorizationId);

    /** Voids an open authorization. */
    void voidAuthorization(ConnectorCall call, String authorizationId);

    /** Refunds {@code amount} of a capture; a failed refund returns {@code approved == false}. */
    Result refund(ConnectorCall call, String paymentId, BigDecimal amount, String currency);

    record Result(boolean approved, String id, String message) {
    }
}
