package io.orderflow.runner.nodes;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The node types a flow may use, registered by type name in this one place. */
public final class NodeCatalogue {

    private final Map<String, Node> nodes = new LinkedHashMap<>();

    public NodeCatalogue(List<Node> nodes) {
        nodes.forEach(node -> this.nodes.put(node.type(), node));
    }

    public static NodeCatalogue standard() {
        return new NodeCatalogue(List.of(
                new ExtractOrderNode(), new PricingNode(), new TaxNode(), new PolicyNode(), new ReserveStockNode(),
                new ApprovalNode(), new WaitForEventNode(), new ControlWaitNode(), new ConditionNode(),
                new CapturePaymentNode(), new ChargeNode(), new InvoiceNode(), new ShipNode(), new RefundNode(),
                new EndNode()));
    }

    public Optional<Node> find(String type) {
        return Optional.ofNullable(nodes.get(type));
    }

    public Node get(String type) {
        return find(type).orElseThrow(() -> new IllegalArgumentException("Unknown node type " + type));
    }

    public Set<String> types() {
        return nodes.keySet();
    }
}
