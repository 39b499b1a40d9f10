package io.orderflow.runner.connectors;

/**
 * The failure paths an order's {@code meta.simulate} forces in the mock connectors that compensation calls. The mocks
 * keep no state: the ids they hand out derive from the call ({@link ConnectorCall#ref}), so a repeated call answers
 * the same.
 */
final class Simulated {

    private Simulated() {
    }

    /** Simulated failure of a compensation step ({@code meta.simulate: compensation_failed}). */
    static void failCompensationIfAsked(ConnectorCall call, String what) {
        if (call.simulates("compensation_failed")) {
            throw new ConnectorException("Could not " + what + " (simulated compensation_failed)");
        }
    }
}
