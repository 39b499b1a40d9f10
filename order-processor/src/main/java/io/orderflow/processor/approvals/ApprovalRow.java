package io.orderflow.processor.approvals;

import java.math.BigDecimal;

/**
 * An approval record of the approvals inbox: created {@code pending} when an Approval node opens its wait,
 * closed as {@code approved}, {@code rejected}, {@code escalated} (decidedBy {@code timeout}) or {@code cancelled}.
 *
 * @param amount    the order total when the wait opened
 * @param createdAt epoch milliseconds
 * @param decidedAt epoch milliseconds, once closed
 * @param orderTitle the order's title, for the inbox
 * @param currency  the order's currency, the amount's
 * @param deadline  epoch milliseconds, the wait's scaled deadline (escalation); null on rows stored before it was kept
 */
public record ApprovalRow(String orderId, String nodeId, String title, String assignee, BigDecimal amount,
                          String status, long createdAt, Long decidedAt, String decidedBy, String note,
                          String orderTitle, String currency, Long deadline) {

    public static final String PENDING = "pending";

    public static String key(String orderId, String nodeId) {
        return orderId + "|" + nodeId;
    }

    public ApprovalRow close(String outcome, long at, String by, String decisionNote) {
        return new ApprovalRow(orderId, nodeId, title, assignee, amount, outcome, createdAt, at, by, decisionNote,
                orderTitle, currency, deadline);
    }

    /** This row for node {@code node} (a migration renamed the node). */
    public ApprovalRow at(String node) {
        return new ApprovalRow(orderId, node, title, assignee, amount, status, createdAt, decidedAt, decidedBy, note,
                orderTitle, currency, deadline);
    }
}
