package io.orderflow.runner.connectors;

import java.util.Set;

/**
 * Who is calling a connector: the ids a connector hands out derive from (order, generation, node, run, attempt), so a
 * replay after a crash asks for the same ids and repeats nothing, while each pass of a loop gets ids of its own.
 *
 * @param run      which run of the node this is within the order (1 for the first; a loop back to the node starts
 *                 the next run, a retry does not)
 * @param simulate the order's {@code meta.simulate} values, forcing failure paths in the mock connectors
 */
public record ConnectorCall(String orderId, int generation, String nodeId, int run, int attempt,
                            Set<String> simulate) {

    public ConnectorCall {
        simulate = Set.copyOf(simulate);
    }

    /**
     * A deterministic reference such as {@code auth-ord_1-g1-pay-a1}, or {@code inv-ord_1-g1-invoice-r2-a1} for the
     * second run of a node. The first run carries no run number so ids of flows without loops stay as they were.
     */
    public String ref(String prefix) {
        return prefix + "-" + orderId + "-g" + generation + "-" + nodeId + (run > 1 ? "-r" + run : "") + "-a" + attempt;
    }

    public boolean simulates(String value) {
        return simulate.contains(value);
    }
}
