package io.orderflow.kafka.clock;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The time a service decides by when it runs with {@code CLOCK_CONTROL=true}: real time plus an offset that follows the
 * {@code clock} topic ({@link ClockFollower}). It never stands still: after a change it runs on at the real rate from
 * where the change put it, so retries, polls and sleeps keep moving between changes. The offset starts at zero, and a
 * view in another zone ({@link #withZone}) shares it.
 */
public final class ServiceClock extends Clock {

    private final Clock real;
    private final AtomicLong offsetMillis;

    /** A clock at real time (offset zero) until it is told otherwise. */
    public ServiceClock(Clock real) {
        this(real, new AtomicLong());
    }

    private ServiceClock(Clock real, AtomicLong offsetMillis) {
        this.real = real;
        this.offsetMillis = offsetMillis;
    }

    @Override
    public Instant instant() {
        return real.instant().plusMillis(offsetMillis.get());
    }

    @Override
    public long millis() {
        return real.millis() + offsetMillis.get();
    }

    @Override
    public ZoneId getZone() {
        return real.getZone();
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return zone.equals(getZone()) ? this : new ServiceClock(real.withZone(zone), offsetMillis);
    }

    /** Real time: what this clock adds its offset to. */
    public Clock real() {
        return real;
    }

    /** Service time minus real time. */
    public Duration offset() {
        return Duration.ofMillis(offsetMillis.get());
    }

    /** Service time minus real time, in milliseconds. */
    public long offsetMillis() {
        return offsetMillis.get();
    }

    /** Sets the offset: from here on the clock reads real time plus it. */
    void follow(long offsetMillis) {
        this.offsetMillis.set(offsetMillis);
    }
}
