package io.orderflow.kafka.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** TEST ONLY. A clock that stands still until a test moves it; safe to read from the threads a test starts. */
public final class ManualClock extends Clock {

    private final AtomicReference<Instant> now;

    public ManualClock() {
        this(Instant.now());
    }

    public ManualClock(Instant start) {
        this.now = new AtomicReference<>(start);
    }

    public void advance(Duration by) {
        now.updateAndGet(instant -> instant.plus(by));
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
