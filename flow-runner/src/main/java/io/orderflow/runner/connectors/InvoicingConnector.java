package io.orderflow.runner.connectors;

import java.math.BigDecimal;

/** Issues invoices. */
public interface InvoicingConnector {

    String issue(ConnectorCall call, BigDecimal amount, String currency, int dueDays);

    /** Voids an issued invoice (idempotent). */
    void voidInvoice(ConnectorCall call, String invoiceId);
}
