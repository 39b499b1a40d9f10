package io.orderflow.runner.connectors;

import java.util.List;

/** Holds stock for orders. */
public interface InventoryConnector {

    /** Holds {@code qty} of each line; returns {@code reserved == false} (holding nothing) when any SKU is short. */
    Reservation reserve(ConnectorCall call, List<Line> lines);

    /** Releases a hold (idempotent). */
    void release(ConnectorCall call, String holdId);

    /** What to reorder: one line per SKU whose stock on hand is below its reorder point, with its reorder quantity. */
    List<Line> belowReorderPoint();

    record Line(String sku, int qty) {
    }

    record Reservation(boolean reserved, String holdId, List<String> shortSkus) {
    }
}
