package io.orderflow.schemas.clock;

/**
 * The service clock as the gateway last set it, on the compacted {@code clock} topic (key {@link #KEY}). Only services
 * started with {@code CLOCK_CONTROL=true} read it; each then tells the time as real time plus {@code offsetMillis}.
 * The record holds the whole offset, not a step, so the topic's latest record is the clock, whatever came before.
 *
 * @param offsetMillis service time minus real time, in milliseconds; 0 is real time
 * @param changedAt    real time of the change, epoch milliseconds
 * @param changedBy    who changed it, as the audit log names callers
 */
public record ClockSetting(long offsetMillis, long changedAt, String changedBy) {

    /** The one key of the {@code clock} topic. */
    public static final String KEY = "clock";
}
