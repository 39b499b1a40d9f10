package io.orderflow.runner.nodes;

import io.orderflow.runner.connectors.ShippingConnector;
import io.orderflow.schemas.json.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code commerce.ship}: books a shipment to {@code meta.shipTo} and consumes the order's stock holds. Throws on
 * every attempt when the carrier is down ({@code meta.simulate: carrier_down}), so its retry policy applies and the
 * run then fails. Sends {@code order.shipped}. Compensation cancels the shipment.
 */
public final class ShipNode implements Node {

    @Override
    public String type() {
        return "commerce.ship";
    }

    @Override
    public NodeOutcome execute(NodeContext ctx) {
        String shipTo = NodeContext.text(ctx.meta().get("shipTo"), "");
        ShippingConnector.Shipment shipment = ctx.connectors().shipping().book(ctx.call(), shipTo);
        ctx.hold("shipment", shipment.shipmentId());
        ctx.openHolds("stock").forEach(ctx::close);
        ObjectNode out = Json.object();
        out.put("shipmentId", shipment.shipmentId());
        out.put("carrier", shipment.carrier());
        out.put("trackingNumber", shipment.trackingNumber());
        return new NodeOutcome.Done(null, out, "Shipped with " + shipment.carrier() + ", tracking "
                + shipment.trackingNumber());
    }

    @Override
    public String eventOn(String branch, JsonNode output) {
        return "order.shipped";
    }

    @Override
    public void compensate(NodeContext ctx, JsonNode output) {
        String shipmentId = NodeContext.text(output.get("shipmentId"), "");
        ctx.connectors().shipping().cancel(ctx.call(), shipmentId);
        ctx.openHolds("shipment").stream().filter(h -> h.id().equals(shipmentId)).forEach(ctx::close);
    }
}
