package io.orderflow.kafka.clock;

import io.orderflow.schemas.requests.ClockRules;
import java.time.Duration;
import java.time.Instant;

/**
 * The arithmetic of a change to the service clock, on its offset from real time. A change moves the clock forward by
 * at most {@link ClockRules#MAX_STEP}; a reset puts it back to real time. The service time never passes
 * {@link #LATEST}, so every instant it tells has an ordinary four-digit year.
 */
public final class ClockChange {

    /** The latest service time a change may reach. */
    public static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");

    private ClockChange() {
    }

    /** What a change does: moves the clock to a new offset, or is refused with why (a request field and a message). */
    public sealed interface Outcome permits Moved, Refused {
    }

    /**
     * The clock after the change.
     *
     * @param offsetMillis the new offset from real time
     * @param now          the service time at the moment of the change
     */
    public record Moved(long offsetMillis, Instant now) implements Outcome {
    }

    /** @param field the JSON Pointer of the request field at fault */
    public record Refused(String field, String message) implements Outcome {
    }

    /** Moves the clock forward by {@code step}: more than zero and at most {@link ClockRules#MAX_STEP}. */
    public static Outcome advance(long offsetMillis, long realNowMillis, Duration step) {
        if (step.isNegative() || step.isZero()) {
            return new Refused("/advanceBy", ClockRules.NOT_FORWARD);
        }
        if (step.compareTo(ClockRules.MAX_STEP) > 0) {
            return new Refused("/advanceBy", ClockRules.TOO_FAR);
        }
        return moved(offsetMillis + step.toMillis(), realNowMillis, "/advanceBy");
    }

    /**
     * Moves the clock to {@code at}: not before the current service time, and at most {@link ClockRules#MAX_STEP}
     * after it. The clock runs on from {@code at}.
     */
    public static Outcome pin(long offsetMillis, long realNowMillis, Instant at) {
        Instant now = Instant.ofEpochMilli(realNowMillis + offsetMillis);
        if (at.isBefore(now)) {
            return new Refused("/pinAt", "must not be before the current service time, " + now);
        }
        if (Duration.between(now, at).compareTo(ClockRules.MAX_STEP) > 0) {
            return new Refused("/pinAt", "must be at most P366D after the current service time, " + now);
        }
        return moved(at.toEpochMilli() - realNowMillis, realNowMillis, "/pinAt");
    }

    /** Back to real time. */
    public static Outcome reset(long realNowMillis) {
        return new Moved(0, Instant.ofEpochMilli(realNowMillis));
    }

    private static Outcome moved(long offsetMillis, long realNowMillis, String field) {
        Instant now = Instant.ofEpochMilli(realNowMillis + offsetMillis);
        if (now.isAfter(LATEST)) {
            return new Refused(field, "would move the service time past " + LATEST);
        }
        return new Moved(offsetMillis, now);
    }
}
