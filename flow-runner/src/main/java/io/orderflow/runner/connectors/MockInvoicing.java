package io.orderflow.runner.connectors;

import java.math.BigDecimal;

/** Invoicing: always issues; ids derive from the call. */
public final class MockInvoicing implements InvoicingConnector {

    private final MockLedger ledger = new MockLedger();

    @Override
    public String issue(ConnectorCall call, BigDecimal amount, String currency, int dueDays) {
        String id = call.ref("inv");
        ledger.record(id, "issued");
        return id;
    }

    @Override
    public void voidInvoice(ConnectorCall call, String invoiceId) {
        MockLedger.failCompensationIfSimulated(call, "void invoice " + invoiceId);
        ledger.record(invoiceId, "void");
    }
}
