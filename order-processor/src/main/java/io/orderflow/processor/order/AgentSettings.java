package io.orderflow.processor.order;

import java.time.Duration;

import io.orderflow.schemas.model.TimeScale;

/**
 * Settings that change the order agent's decisions.
 *
 * @param timeScale      divides every wait timeout ({@code TIME_SCALE}); a scaled timeout is never below one second
 * @param webhookRetries retries of the {@code order.cancelled} event's deliveries ({@code WEBHOOK_RETRIES})
 * @param orderRetention how long an ended order stays in the live state, the list and the counts after its last
 *                       change, before it is archived ({@code ORDER_RETENTION}); wall-clock time, not scaled
 */
public record AgentSettings(long timeScale, int webhookRetries, Duration orderRetention) {

    /** Ended orders are kept 30 days unless set otherwise. */
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(30);
    public static final AgentSettings DEFAULTS = new AgentSettings(1440, 5);

    public AgentSettings(long timeScale, int webhookRetries) {
        this(timeScale, webhookRetries, DEFAULT_RETENTION);
    }

    /** Rollback poll: every 10 s of wall-clock time (not scaled), at most 60 times. */
    public static final long POLL_INTERVAL_MS = 10_000;
    public static final int MAX_POLLS = 60;

    public AgentSettings {
        if (timeScale < 1) {
            throw new IllegalArgumentException("time scale must be at least 1, was " + timeScale);
        }
        if (orderRetention == null || orderRetention.isNegative() || orderRetention.isZero()) {
            throw new IllegalArgumentException("the order retention must be positive, was " + orderRetention);
        }
    }

    public long scaledTimeout(long timeoutMs) {
        return TimeScale.scaled(timeoutMs, timeScale);
    }
}
