package io.orderflow.schemas.flows;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * How often a throwing node is tried, and how long to wait between tries (growing by {@code multiplier}). In a flow
 * file every field may be left out: {@code maxAttempts} defaults to {@value #DEFAULT_MAX_ATTEMPTS},
 * {@code initialBackoffMs} to {@value #DEFAULT_INITIAL_BACKOFF_MS}, {@code multiplier} to
 * {@value #DEFAULT_MULTIPLIER}.
 */
public record RetryPolicy(int maxAttempts, long initialBackoffMs, double multiplier) {

    public static final int DEFAULT_MAX_ATTEMPTS = 3;
    public static final long DEFAULT_INITIAL_BACKOFF_MS = 1000;
    public static final double DEFAULT_MULTIPLIER = 2;

    public static final RetryPolicy NONE = new RetryPolicy(1, 0, 1);

    public RetryPolicy {
        if (maxAttempts < 1 || initialBackoffMs < 0 || multiplier < 1) {
            throw new IllegalArgumentException("A retry policy needs maxAttempts >= 1, initialBackoffMs >= 0 and "
                    + "multiplier >= 1; got " + maxAttempts + ", " + initialBackoffMs + ", " + multiplier);
        }
    }

    /** The policy as a flow file spells it, with the defaults for what it leaves out. */
    @JsonCreator
    static RetryPolicy fromJson(@JsonProperty("maxAttempts") Integer maxAttempts,
                                @JsonProperty("initialBackoffMs") Long initialBackoffMs,
                                @JsonProperty("multiplier") Double multiplier) {
        return new RetryPolicy(maxAttempts == null ? DEFAULT_MAX_ATTEMPTS : maxAttempts,
                initialBackoffMs == null ? DEFAULT_INITIAL_BACKOFF_MS : initialBackoffMs,
                multiplier == null ? DEFAULT_MULTIPLIER : multiplier);
    }

    /** Backoff before attempt {@code attempt + 1}, with {@code attempt} starting at 1. */
    public long backoffAfter(int attempt) {
        return (long) (initialBackoffMs * Math.pow(multiplier, attempt - 1));
    }
}
