package io.orderflow.runner.connectors;

/** Shipping: {@code carrier_down} makes every booking attempt throw. */
public final class MockShipping implements ShippingConnector {

    @Override
    public Shipment book(ConnectorCall call, String shipTo) {
        if (call.simulates("carrier_down")) {
            throw new ConnectorException("Carrier unreachable (simulated carrier_down)");
        }
        String id = call.ref("shp");
        return new Shipment(id, "MockCarrier", "TRK" + Integer.toUnsignedString(id.hashCode(), 36).toUpperCase());
    }

    @Override
    public void cancel(ConnectorCall call, String shipmentId) {
        Simulated.failCompensationIfAsked(call, "cancel shipment " + shipmentId);
    }
}
