package io.orderflow.kafka.clock;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.kafka.clock.ClockChange.Moved;
import io.orderflow.kafka.clock.ClockChange.Refused;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The arithmetic of a clock change: what offset each leaves, and what each refuses. */
class ClockChangeTest {

    private static final long REAL_NOW = Instant.parse("2026-11-30T10:00:00Z").toEpochMilli();
    private static final long TWO_HOURS = Duration.ofHours(2).toMillis();

    @Test
    void an_advance_adds_its_step_to_the_offset_it_finds() {
        assertThat(ClockChange.advance(0, REAL_NOW, Duration.ofHours(2)))
                .isEqualTo(new Moved(TWO_HOURS, Instant.parse("2026-11-30T12:00:00Z")));
        assertThat(ClockChange.advance(TWO_HOURS, REAL_NOW, Duration.ofDays(2).plusMinutes(1)))
                .isEqualTo(new Moved(TWO_HOURS + Duration.ofDays(2).plusMinutes(1).toMillis(),
                        Instant.parse("2026-12-02T12:01:00Z")));
    }

    @Test
    void an_advance_goes_forward_at_most_366_days() {
        assertThat(ClockChange.advance(0, REAL_NOW, Duration.ofDays(366))).isInstanceOf(Moved.class);
        assertThat(ClockChange.advance(0, REAL_NOW, Duration.ofDays(366).plusMillis(1)))
                .isEqualTo(new Refused("/advanceBy", "must be at most P366D"));
        assertThat(ClockChange.advance(0, REAL_NOW, Duration.ZERO))
                .isEqualTo(new Refused("/advanceBy", "must be more than zero"));
        assertThat(ClockChange.advance(0, REAL_NOW, Duration.ofHours(-1)))
                .isEqualTo(new Refused("/advanceBy", "must be more than zero"));
    }

    @Test
    void a_pin_sets_the_offset_that_makes_the_service_time_that_instant() {
        Instant at = Instant.parse("2026-12-01T06:00:00Z");
        assertThat(ClockChange.pin(TWO_HOURS, REAL_NOW, at))
                .isEqualTo(new Moved(at.toEpochMilli() - REAL_NOW, at));
        // pinning to the current service time changes nothing
        assertThat(ClockChange.pin(TWO_HOURS, REAL_NOW, Instant.ofEpochMilli(REAL_NOW + TWO_HOURS)))
                .isEqualTo(new Moved(TWO_HOURS, Instant.ofEpochMilli(REAL_NOW + TWO_HOURS)));
    }

    @Test
    void a_pin_is_not_before_the_service_time_nor_more_than_366_days_after_it() {
        assertThat(ClockChange.pin(TWO_HOURS, REAL_NOW, Instant.parse("2026-11-30T11:59:59Z")))
                .isEqualTo(new Refused("/pinAt", "must not be before the current service time, 2026-11-30T12:00:00Z"));
        assertThat(ClockChange.pin(0, REAL_NOW, Instant.parse("2027-12-01T10:00:00Z")))
                .isEqualTo(new Moved(Duration.ofDays(366).toMillis(), Instant.parse("2027-12-01T10:00:00Z")));
        assertThat(ClockChange.pin(0, REAL_NOW, Instant.parse("2027-12-01T10:00:00.001Z"))).isEqualTo(new Refused(
                "/pinAt", "must be at most P366D after the current service time, 2026-11-30T10:00:00Z"));
    }

    @Test
    void the_service_time_stays_within_four_digit_years() {
        long nearTheEnd = ClockChange.LATEST.toEpochMilli() - REAL_NOW - Duration.ofDays(1).toMillis();
        assertThat(ClockChange.advance(nearTheEnd, REAL_NOW, Duration.ofDays(1))).isInstanceOf(Moved.class);
        assertThat(ClockChange.advance(nearTheEnd, REAL_NOW, Duration.ofDays(2)))
                .isEqualTo(new Refused("/advanceBy", "would move the service time past 9999-12-31T23:59:59Z"));
    }

    @Test
    void a_reset_is_real_time() {
        assertThat(ClockChange.reset(REAL_NOW)).isEqualTo(new Moved(0, Instant.ofEpochMilli(REAL_NOW)));
    }
}
