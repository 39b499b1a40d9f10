package io.orderflow.schemas.flows;

import io.orderflow.schemas.model.OrderType;
import java.util.List;

/** A flow graph as published: the JSON flow file format (see docs/flows.md, "Flow file format"). */
public record FlowDefinition(String id, String name, String description, OrderType orderType,
                             List<NodeDefinition> nodes, List<EdgeDefinition> edges) {
}
