package io.orderflow.runner.nodes;

import java.math.BigDecimal;
import java.time.Duration;
import tools.jackson.databind.JsonNode;

/** What executing a node produced. */
public sealed interface NodeOutcome {

    /**
     * The node finished.
     *
     * @param branch the branch taken, or {@code null} for the default {@code next}
     * @param output becomes {@code nodes.<id>}
     */
    record Done(String branch, JsonNode output, String summary) implements NodeOutcome {
    }

    /** The node waits for a decision or an event (reported as {@code WaitRequested}); {@code timeout} is unscaled. */
    record Wait(String kind, String title, String event, String assignee, BigDecimal amount, Duration timeout,
                String summary) implements NodeOutcome {
    }

    /** The node sleeps for {@code duration} (already scaled) on the timer store, then finishes with {@code done}. */
    record Sleep(long millis, Done done) implements NodeOutcome {
    }

    /** An End node: the run ends with {@code outcome} ({@code completed|declined|cancelled|failed}). */
    record End(String outcome, String reason) implements NodeOutcome {
    }
}
