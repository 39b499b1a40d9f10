package io.orderflow.processor.streams;

import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.flows.EdgeDefinition;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.flows.NodeDefinition;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderType;
import tools.jackson.databind.JsonNode;

import java.util.List;

/** A small storefront flow and start commands for it. */
final class Fixtures {

    static final String ORDER = "ord_test1";

    static final FlowVersion FLOW = new FlowVersion("storefront_order", 1, 1_700_000_000_000L,
            new FlowDefinition("storefront_order", "Storefront order", "test flow", OrderType.STOREFRONT_ORDER,
                    List.of(node("extract", "extract_order"), node("approve", "approval"),
                            node("pay", "wait_for_event"), node("sleep", "control.wait"), node("end", "end")),
                    List.of(new EdgeDefinition("e1", "extract", "approve", null),
                            new EdgeDefinition("e2", "approve", "pay", "approved"),
                            new EdgeDefinition("e3", "pay", "sleep", "received"),
                            new EdgeDefinition("e4", "sleep", "end", null))));

    private Fixtures() {
    }

    static NodeDefinition node(String id, String type) {
        return new NodeDefinition(id, type, id, Json.object(), null);
    }

    static JsonNode input() {
        return Json.MAPPER.readTree("""
                {"type":"storefront_order","customerId":"cus_42","currency":"USD",
                 "lines":[{"sku":"SKU-1","name":"Widget","qty":2,"unitPrice":12.5}],"meta":{"channel":"web"}}""");
    }

    static OrderCommand.StartOrder start(String orderId) {
        return start(orderId, "fp-1");
    }

    static OrderCommand.StartOrder start(String orderId, String fingerprint) {
        return new OrderCommand.StartOrder(orderId, FLOW, input(), Json.object().put("seed", 1), fingerprint, true);
    }
}
