package io.orderflow.runner.connectors;

/** Books shipments with a carrier. */
public interface ShippingConnector {

    /** Books a shipment; throws {@link ConnectorException} when the carrier cannot be reached. */
    Shipment book(ConnectorCall call, String shipTo);

    /** Cancels a booked shipment (idempotent). */
    void cancel(ConnectorCall call, String shipmentId);

    record Shipment(String shipmentId, String carrier, String trackingNumber) {
    }
}
