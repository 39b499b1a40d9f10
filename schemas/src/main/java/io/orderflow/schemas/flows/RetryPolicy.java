package io.orderflow.schemas.flows;

/**
 * How often a throwing node is tried, and how long to wait between tries (doubling by {@code multiplier}).
 */
public record RetryPolicy(int maxAttempts, long initialBackoffMs, double multiplier) {

    public static final RetryPolicy NONE = new RetryPolicy(1, 0, 1);

    /** Backoff before attempt {@code attempt + 1}, with {@code attempt} starting at 1. */
    public long backoffAfter(int attempt) {
        return (long) (initialBackoffMs * Math.pow(multiplier, attempt - 1));
    }
}
