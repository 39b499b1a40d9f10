package io.orderflow.gateway.batches;

/**
 * At most {@code perSecond} events a second, evenly spaced: {@link #due} says when the next may happen, {@link #took}
 * that one did. Not thread-safe; its one user is the runner's worker thread.
 */
final class Pace {

    private final long gapNanos;
    private long next;

    Pace(int perSecond) {
        this.gapNanos = 1_000_000_000L / Math.max(1, perSecond);
        this.next = System.nanoTime();
    }

    /** The {@link System#nanoTime()} from which the next event may happen. */
    long due() {
        return next;
    }

    /** One event happened at {@code now}: the next waits a gap from it (no saving up while idle). */
    void took(long now) {
        next = Math.max(next, now) + gapNanos;
    }

    /** Nothing may happen before {@code at}. */
    void notBefore(long at) {
        next = Math.max(next, at);
    }

    /** The next event may happen at once. */
    void now(long now) {
        next = now;
    }
}
