package io.orderflow.processor.order;

import com.fasterxml.jackson.annotation.JsonIgnore;

import java.math.BigDecimal;

/**
 * An open wait of an order.
 *
 * @param kind     {@code approval} or {@code event}
 * @param event    the awaited event type ({@code approval} for an approval)
 * @param deadline epoch milliseconds, the scaled deadline
 * @param since    epoch milliseconds when the node began waiting
 */
public record Wait(String nodeId, String kind, String title, String event, String assignee, BigDecimal amount,
                   long deadline, long since) {

    public static final String APPROVAL = "approval";
    public static final String EVENT = "event";

    @JsonIgnore
    public boolean isApproval() {
        return APPROVAL.equals(kind);
    }
}
