package io.orderflow.runner.connectors;

/** The connectors a run uses; {@link #mock()} gives the deterministic mock implementations. */
public record Connectors(PaymentConnector payment, InventoryConnector inventory, ShippingConnector shipping,
                         InvoicingConnector invoicing) {

    public static Connectors mock() {
        return new Connectors(new MockPayment(), new MockInventory(), new MockShipping(), new MockInvoicing());
    }
}
