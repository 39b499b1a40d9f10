package io.orderflow.runner.nodes;

import io.orderflow.runner.connectors.ConnectorCall;
import io.orderflow.runner.connectors.Connectors;
import io.orderflow.runner.money.Money;
import io.orderflow.runner.scope.RunScope;
import io.orderflow.runner.scope.Templates;
import io.orderflow.schemas.flows.NodeDefinition;
import io.orderflow.schemas.json.Json;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** What a node sees while it executes: its definition, the instance (order, vars, outputs) and the connectors. */
public final class NodeContext {

    private final RunState instance;
    private final NodeDefinition definition;
    private final int attempt;
    private final Connectors connectors;
    private final Money money;
    private final long timeScale;
    private final long now;

    public NodeContext(RunState instance, NodeDefinition definition, int attempt, Connectors connectors,
                       Money money, long timeScale, long now) {
        this.instance = instance;
        this.definition = definition;
        this.attempt = attempt;
        this.connectors = connectors;
        this.money = money;
        this.timeScale = timeScale;
        this.now = now;
    }

    public NodeDefinition definition() {
        return definition;
    }

    public String nodeId() {
        return definition.id();
    }

    /** The node's settings, an empty object when the flow gives none. */
    public JsonNode settings() {
        return definition.settings() == null ? Json.object() : definition.settings();
    }

    public String setting(String name, String fallback) {
        JsonNode value = settings().get(name);
        return value == null || value.isNull() ? fallback : value.asString();
    }

    /** The order object, mutable: nodes add {@code lines}, {@code subtotal}, {@code tax}, {@code total}, ... */
    public ObjectNode order() {
        return instance.order();
    }

    public ObjectNode vars() {
        return instance.vars();
    }

    /**
     * The order's document text: the stored document its {@code documentRef} names, or an order object's own
     * {@code documentText}; empty when it has neither.
     */
    public String documentText() {
        if (instance.documentText() != null) {
            return instance.documentText();
        }
        return text(order().get("documentText"), "");
    }

    public String currency() {
        return text(order().get("currency"), "USD");
    }

    public ObjectNode meta() {
        JsonNode meta = order().get("meta");
        return meta instanceof ObjectNode object ? object : Json.object();
    }

    /** The order's {@code meta.simulate} values (a string or an array of strings). */
    public Set<String> simulate() {
        JsonNode simulate = meta().get("simulate");
        Set<String> values = new LinkedHashSet<>();
        if (simulate != null && simulate.isArray()) {
            simulate.forEach(v -> values.add(v.asString()));
        } else if (simulate != null && !simulate.isNull()) {
            values.add(simulate.asString());
        }
        return values;
    }

    /** The order total, else its subtotal, else zero. */
    public BigDecimal amount() {
        return decimal(order().get("total"), decimal(order().get("subtotal"), BigDecimal.ZERO));
    }

    public ConnectorCall call() {
        return new ConnectorCall(instance.orderId(), instance.generation(), nodeId(), instance.runsOf(nodeId()),
                attempt, simulate());
    }

    public Connectors connectors() {
        return connectors;
    }

    public Money money() {
        return money;
    }

    public long timeScale() {
        return timeScale;
    }

    public long now() {
        return now;
    }

    public int attempt() {
        return attempt;
    }

    /** The scope templates and expressions see: {@code order}, {@code vars}, {@code nodes}, {@code input}. */
    public Map<String, Object> scope() {
        return RunScope.of(instance.order(), instance.vars(), instance.outputs());
    }

    public String render(String template) {
        return Templates.render(template, this::scope);
    }

    /**
     * The order's latest payment: the {@code paymentId} output of the most recently completed node that took money
     * ({@code commerce.charge}, or {@code commerce.capture_payment} when it captured), if any.
     */
    public Optional<String> lastPaymentId() {
        for (String completed : instance.completed().reversed()) {
            String paymentId = text(instance.outputs().path(completed).get("paymentId"), null);
            if (paymentId != null) {
                return Optional.of(paymentId);
            }
        }
        return Optional.empty();
    }

    /** Records that a connector now holds something for the order. */
    public void hold(String kind, String id) {
        instance.holds().add(new Hold(kind, id, nodeId(), true));
    }

    /** Open holds of {@code kind}. */
    public List<Hold> openHolds(String kind) {
        return instance.holds().stream().filter(h -> h.open() && h.kind().equals(kind)).toList();
    }

    /** Marks a hold closed (consumed, captured, released). */
    public void close(Hold hold) {
        List<Hold> holds = new ArrayList<>(instance.holds());
        holds.replaceAll(h -> h.id().equals(hold.id()) ? new Hold(h.kind(), h.id(), h.nodeId(), false) : h);
        instance.holds(holds);
    }

    public static String text(JsonNode value, String fallback) {
        return value == null || value.isNull() || value.isMissingNode() ? fallback : value.asString();
    }

    public static BigDecimal decimal(JsonNode value, BigDecimal fallback) {
        return value == null || value.isNull() || value.isMissingNode() ? fallback : value.decimalValue();
    }
}
