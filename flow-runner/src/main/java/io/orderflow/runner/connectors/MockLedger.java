package io.orderflow.runner.connectors;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a mock connector holds, by reference: the first call with a reference decides its state and repeats return
 * it, which makes every mock call idempotent.
 */
final class MockLedger {

    private final Map<String, String> states = new ConcurrentHashMap<>();

    String record(String ref, String state) {
        return states.merge(ref, state, (old, next) -> next);
    }

    String state(String ref) {
        return states.get(ref);
    }

    /** Simulated failure of a compensation step ({@code meta.simulate: compensation_failed}). */
    static void failCompensationIfSimulated(ConnectorCall call, String what) {
        if (call.simulates("compensation_failed")) {
            throw new ConnectorException("Could not " + what + " (simulated compensation_failed)");
        }
    }
}
