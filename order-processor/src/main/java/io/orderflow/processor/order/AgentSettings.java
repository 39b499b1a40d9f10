package io.orderflow.processor.order;

import io.orderflow.schemas.model.TimeScale;

/**
 * Settings that change the order agent's decisions.
 *
 * @param timeScale      divides every wait timeout ({@code TIME_SCALE}); a scaled timeout is never below one second
 * @param webhookRetries retries of the {@code order.cancelled} event's deliveries ({@code WEBHOOK_RETRIES})
 */
public record AgentSettings(long timeScale, int webhookRetries) {

    public static final AgentSettings DEFAULTS = new AgentSettings(1440, 5);

    /** Rollback poll: every 10 s of wall-clock time (not scaled), at most 60 times. */
    public static final long POLL_INTERVAL_MS = 10_000;
    public static final int MAX_POLLS = 60;

    public AgentSettings {
        if (timeScale < 1) {
            throw new IllegalArgumentException("time scale must be at least 1, was " + timeScale);
        }
    }

    public long scaledTimeout(long timeoutMs) {
        return TimeScale.scaled(timeoutMs, timeScale);
    }
}
