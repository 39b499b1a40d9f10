package io.orderflow.schemas.model;

/**
 * {@code TIME_SCALE}: every wait and timeout (Approval and Wait-for-event timeouts in the processor,
 * {@code control.wait} in the runner) is divided by it, and never becomes shorter than one second.
 */
public final class TimeScale {

    /** A scaled wait is never below this. */
    public static final long MIN_MILLIS = 1000;

    private TimeScale() {
    }

    /** {@code millis} divided by {@code timeScale} (taken as at least 1), never below one second. */
    public static long scaled(long millis, long timeScale) {
        return Math.max(MIN_MILLIS, millis / Math.max(1L, timeScale));
    }
}
