package io.orderflow.runner.replenishment;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The daily 06:00 schedule checked against a clock that runs, jumps ahead and goes back. */
class CronWatchTest {

    private final CronWatch daily = new CronWatch("0 0 6 * * *", ZoneOffset.UTC);

    @Test
    void fires_once_when_a_check_passes_06_00() {
        assertThat(daily.due(Instant.parse("2026-12-01T05:59:58Z"))).as("the first check starts the watch").isFalse();
        assertThat(daily.due(Instant.parse("2026-12-01T05:59:59Z"))).isFalse();
        assertThat(daily.due(Instant.parse("2026-12-01T06:00:00Z"))).isTrue();
        assertThat(daily.due(Instant.parse("2026-12-01T06:00:01Z"))).isFalse();
    }

    @Test
    void a_jump_over_several_days_fires_once() {
        daily.due(Instant.parse("2026-12-01T10:00:00Z"));
        assertThat(daily.due(Instant.parse("2026-12-04T10:00:00Z"))).isTrue();
        assertThat(daily.due(Instant.parse("2026-12-04T10:00:01Z"))).isFalse();
    }

    @Test
    void a_jump_that_stops_short_of_06_00_does_not_fire() {
        daily.due(Instant.parse("2026-12-01T07:00:00Z"));
        assertThat(daily.due(Instant.parse("2026-12-02T05:59:59Z"))).isFalse();
        assertThat(daily.due(Instant.parse("2026-12-02T06:00:00.500Z"))).isTrue();
    }

    @Test
    void a_clock_that_went_back_watches_again_from_where_it_is() {
        daily.due(Instant.parse("2026-12-10T07:00:00Z"));
        assertThat(daily.due(Instant.parse("2026-12-01T05:59:59Z"))).as("reset to real time").isFalse();
        assertThat(daily.due(Instant.parse("2026-12-01T06:00:00Z"))).isTrue();
    }

    @Test
    void the_first_check_after_a_start_never_fires() {
        assertThat(daily.due(Instant.parse("2026-12-01T06:00:00Z"))).isFalse();
    }
}
