package io.orderflow.runner.connectors;

import java.math.BigDecimal;

/** Invoicing: always issues; ids derive from the call. */
public final class MockInvoicing implements InvoicingConnector {

    @Override
    public String issue(ConnectorCall call, BigDecimal amount, String currency, int dueDays) {
        return call.ref("inv");
    }

    @Override
    public void voidInvoice(ConnectorCall call, String invoiceId) {
        Simulated.failCompensationIfAsked(call, "void invoice " + invoiceId);
    }
}
