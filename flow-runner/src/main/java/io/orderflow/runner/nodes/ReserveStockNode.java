package io.orderflow.runner.nodes;

import io.orderflow.runner.connectors.InventoryConnector;
import io.orderflow.schemas.json.Json;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code reserve_stock}: holds stock for every line. Branches {@code ok} and {@code out_of_stock}
 * ({@code meta.simulate: out_of_stock}). Compensation releases the hold.
 */
public final class ReserveStockNode implements Node {

    @Override
    public String type() {
        return "reserve_stock";
    }

    @Override
    public List<String> branches() {
        return List.of("ok", "out_of_stock");
    }

    @Override
    public NodeOutcome execute(NodeContext ctx) {
        List<InventoryConnector.Line> lines = new ArrayList<>();
        for (JsonNode line : ctx.order().path("lines")) {
            lines.add(new InventoryConnector.Line(line.path("sku").asString(), line.path("qty").asInt(1)));
        }
        InventoryConnector.Reservation reservation = ctx.connectors().inventory().reserve(ctx.call(), lines);
        ObjectNode out = Json.object();
        out.put("reserved", reservation.reserved());
        if (!reservation.reserved()) {
            out.set("shortSkus", Json.tree(reservation.shortSkus()));
            return new NodeOutcome.Done("out_of_stock", out, "Out of stock: " + String.join(", ", reservation.shortSkus()));
        }
        out.put("holdId", reservation.holdId());
        ctx.hold("stock", reservation.holdId());
        return new NodeOutcome.Done("ok", out, "Held stock for " + lines.size() + " line(s) (" + reservation.holdId() + ")");
    }

    @Override
    public void compensate(NodeContext ctx, JsonNode output) {
        for (var hold : ctx.openHolds("stock")) {
            if (hold.nodeId().equals(ctx.nodeId())) {
                ctx.connectors().inventory().release(ctx.call(), hold.id());
                ctx.close(hold);
            }
        }
    }
}
