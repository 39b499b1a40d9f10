package io.orderflow.processor.timers;

/**
 * A timer of the due-time index: a wait's deadline or the next rollback poll. Keys sort by due time
 * (zero-padded decimal, so the byte order of the string key is the time order).
 *
 * @param kind        {@link #DEADLINE} or {@link #POLL}
 * @param traceparent the trace context of the record that set the timer, carried by the records its firing causes;
 *                    null when there was none
 */
public record Due(String orderId, String kind, String nodeId, int attempt, long dueAt, String traceparent) {

    public static final String DEADLINE = "deadline";
    public static final String POLL = "poll";

    public Due(String orderId, String kind, String nodeId, int attempt, long dueAt) {
        this(orderId, kind, nodeId, attempt, dueAt, null);
    }

    public static Due deadline(String orderId, String nodeId, long dueAt) {
        return new Due(orderId, DEADLINE, nodeId, 0, dueAt);
    }

    public static Due poll(String orderId, int attempt, long dueAt) {
        return new Due(orderId, POLL, "", attempt, dueAt);
    }

    /** This timer, carrying {@code traceparent}. */
    public Due traced(String traceparent) {
        return new Due(orderId, kind, nodeId, attempt, dueAt, traceparent);
    }

    public String key() {
        return timeKey(dueAt) + "|" + orderId + "|" + kind + "|" + nodeId;
    }

    /** Every key due at or before {@code at} sorts before this bound. */
    public static String upperBound(long at) {
        return timeKey(at) + "|~";
    }

    static String timeKey(long at) {
        return String.format("%019d", Math.max(0, at));
    }
}
