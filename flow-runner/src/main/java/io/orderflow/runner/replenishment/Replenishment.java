package io.orderflow.runner.replenishment;

import io.orderflow.runner.connectors.InventoryConnector;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.commands.CommandEnvelope;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.flows.FlowRecord;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderType;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import tools.jackson.databind.node.ObjectNode;

/**
 * The daily replenishment run: one {@code reorder} order for every SKU below its reorder point in the inventory,
 * started like any order, with a {@code StartOrder} command on {@code order-commands}. The order id is derived from
 * the day ({@code ord_reorder_<yyyyMMdd>}), so a repeated run on the same day replays instead of ordering twice.
 */
public final class Replenishment {

    public static final String REPLY_TO = "flow-runner-replenishment";
    private static final Caller CALLER = new Caller("open", "replenishment", "operator");

    private final InventoryConnector inventory;

    public Replenishment(InventoryConnector inventory) {
        this.inventory = inventory;
    }

    /** The start command for {@code day}, or empty when nothing is below its reorder point or no reorder flow exists. */
    public Optional<CommandEnvelope> plan(LocalDate day, FlowRecord reorderFlow, long now) {
        List<InventoryConnector.Line> lines = inventory.belowReorderPoint();
        Optional<FlowVersion> flow = reorderFlow == null ? Optional.empty() : reorderFlow.resolve(null);
        if (lines.isEmpty() || flow.isEmpty()) {
            return Optional.empty();
        }
        ObjectNode input = Json.object();
        input.put("type", OrderType.REORDER.wire());
        input.put("customerId", "warehouse");
        input.put("currency", OrderCommand.StartOrder.DEFAULT_CURRENCY);
        var array = input.putArray("lines");
        lines.forEach(line -> array.addObject().put("sku", line.sku()).put("qty", line.qty()));
        input.putObject("meta").put("source", "replenishment").put("day", day.toString());
        String orderId = "ord_reorder_" + day.format(DateTimeFormatter.BASIC_ISO_DATE);
        var command = OrderCommand.StartOrder.of(orderId, flow.get(), null, input, Json.object(), true, null);
        return Optional.of(new CommandEnvelope(UUID.randomUUID().toString(), REPLY_TO, now, CALLER, command));
    }

}
