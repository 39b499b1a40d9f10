package io.orderflow.runner.connectors;

import io.orderflow.schemas.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * Stock: every SKU is in stock unless the order simulates {@code out_of_stock}, which makes every line short.
 * Stock levels and reorder points ({@code inventory/stock.json}) drive replenishment only; holds do not change them.
 */
public final class MockInventory implements InventoryConnector {

    private final JsonNode stock = load();

    @Override
    public List<Line> belowReorderPoint() {
        List<Line> lines = new ArrayList<>();
        stock.properties().forEach(e -> {
            JsonNode level = e.getValue();
            if (level.path("onHand").asInt() < level.path("reorderPoint").asInt()) {
                lines.add(new Line(e.getKey(), level.path("reorderQty").asInt()));
            }
        });
        return lines;
    }

    private static JsonNode load() {
        try (InputStream in = MockInventory.class.getClassLoader().getResourceAsStream("inventory/stock.json")) {
            return in == null ? Json.object() : Json.MAPPER.readTree(in).path("stock");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Reservation reserve(ConnectorCall call, List<Line> lines) {
        if (call.simulates("out_of_stock")) {
            return new Reservation(false, null, lines.stream().map(Line::sku).toList());
        }
        String holdId = call.ref("hold");
        return new Reservation(true, holdId, List.of());
    }

    @Override
    public void release(ConnectorCall call, String holdId) {
        Simulated.failCompensationIfAsked(call, "release stock hold " + holdId);
    }
}
