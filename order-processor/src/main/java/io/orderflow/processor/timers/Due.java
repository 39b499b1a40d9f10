package io.orderflow.processor.timers;

/**
 * A timer of the due-time index: a wait's deadline, the next rollback poll or an ended order's archiving. Keys sort by due time
 * (zero-padded decimal, so the byte order of the string key is the time order).
 *
 * @param kind        {@link #DEADLINE}, {@link #POLL} or {@link #ARCHIVE}
 * @param traceparent the trace context of the record that set the timer, carried by the records its firing causes;
 *                    null when there was none
 */
public record Due(String orderId, String kind, String nodeId, int attempt, long dueAt, String traceparent) {

    public static final String DEADLINE = "deadline";
    public static final String POLL = "poll";
    /** An ended order's retention runs out: it is archived (see {@code ORDER_RETENTION}). */
    public static final String ARCHIVE = "archive";

    public Due(String orderId, String kind, String nodeId, int attempt, long dueAt) {
        this(orderId, kind, nodeId, attempt, dueAt, null);
    }

    public static Due deadline(String orderId, String nodeId, long dueAt) {
        return new Due(orderId, DEADLINE, nodeId, 0, dueAt);
    }

    public static Due poll(String orderId, int attempt, long dueAt) {
        return new Due(orderId, POLL, "", attempt, dueAt);
    }

    public static Due archive(String orderId, long dueAt) {
        return new Due(orderId, ARCHIVE, "", 0, dueAt);
    }

    /** This timer, carrying {@code traceparent}. */
    public Due traced(String traceparent) {
        return new Due(orderId, kind, nodeId, attempt, dueAt, traceparent);
    }

    public String key() {
        return timeKey(dueAt) + "|" + orderId + "|" + kind + "|" + nodeId;
    }

    /**
     * Every key sorts at or after this bound. A sweep reads from here rather than from an open start ({@code null}):
     * Kafka Streams 4.4's transactional RocksDB store ignores a range's end when its start is open, and read every
     * deadline, due or not (each wait then timed out at once).
     */
    public static final String LOWER_BOUND = timeKey(0);

    /** Every key due at or before {@code at} sorts before this bound. */
    public static String upperBound(long at) {
        return timeKey(at) + "|~";
    }

    static String timeKey(long at) {
        return String.format("%019d", Math.max(0, at));
    }
}
