package io.orderflow.kafka.clock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The service clock is real time plus its offset, and keeps running at the real rate. */
class ServiceClockTest {

    private static final Instant REAL = Instant.parse("2026-11-30T10:00:00Z");

    @Test
    void tells_real_time_until_it_follows_an_offset() {
        ServiceClock clock = new ServiceClock(Clock.fixed(REAL, ZoneOffset.UTC));
        assertThat(clock.instant()).isEqualTo(REAL);
        assertThat(clock.offset()).isZero();

        clock.follow(Duration.ofHours(2).toMillis());
        assertThat(clock.instant()).isEqualTo(Instant.parse("2026-11-30T12:00:00Z"));
        assertThat(clock.millis()).isEqualTo(REAL.toEpochMilli() + Duration.ofHours(2).toMillis());
        assertThat(clock.offset()).isEqualTo(Duration.ofHours(2));
        assertThat(clock.real().instant()).isEqualTo(REAL);
    }

    @Test
    void runs_on_from_where_the_offset_put_it() {
        Clock[] real = {Clock.fixed(REAL, ZoneOffset.UTC)};
        ServiceClock clock = new ServiceClock(new Clock() {
            @Override
            public Instant instant() {
                return real[0].instant();
            }

            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }
        });
        clock.follow(Duration.ofDays(2).toMillis());
        real[0] = Clock.fixed(REAL.plusSeconds(90), ZoneOffset.UTC);
        assertThat(clock.instant()).isEqualTo(Instant.parse("2026-12-02T10:01:30Z"));
    }

    @Test
    void a_view_in_another_zone_shares_the_offset() {
        ServiceClock clock = new ServiceClock(Clock.fixed(REAL, ZoneOffset.UTC));
        Clock paris = clock.withZone(ZoneId.of("Europe/Paris"));
        clock.follow(Duration.ofHours(20).toMillis());
        assertThat(paris.instant()).isEqualTo(Instant.parse("2026-12-01T06:00:00Z"));
        assertThat(paris.getZone()).isEqualTo(ZoneId.of("Europe/Paris"));
        assertThat(clock.withZone(ZoneOffset.UTC)).isSameAs(clock);
    }
}
