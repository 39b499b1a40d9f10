package io.orderflow.schemas.model;

import java.math.BigDecimal;

/**
 * A node asking the order's agent to open a wait.
 *
 * @param kind      {@code approval} or {@code event}
 * @param event     the awaited event type ({@code approval} for an Approval node, else e.g. {@code payment.received})
 * @param timeoutMs the node's timeout before scaling; the processor divides it by {@code TIME_SCALE}
 * @param since     epoch milliseconds when the node began waiting
 */
public record WaitRequest(String nodeId, String kind, String title, String event, String assignee,
                          BigDecimal amount, long timeoutMs, long since) {
}
