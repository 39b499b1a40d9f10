package io.orderflow.runner.connectors;

import java.util.Set;

/**
 * Who is calling a connector: the ids a connector hands out derive from (order, generation, node, attempt), so a
 * replay after a crash asks for the same ids and repeats nothing.
 *
 * @param simulate the order's {@code meta.simulate} values, forcing failure paths in the mock connectors
 */
public record ConnectorCall(String orderId, int generation, String nodeId, int attempt, Set<String> simulate) {

    public ConnectorCall {
        simulate = Set.copyOf(simulate);
    }

    /** A deterministic reference such as {@code auth-ord_1-g1-pay-a1}. */
    public String ref(String prefix) {
        return prefix + "-" + orderId + "-g" + generation + "-" + nodeId + "-a" + attempt;
    }

    public boolean simulates(String value) {
        return simulate.contains(value);
    }
}
