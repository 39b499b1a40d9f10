package io.orderflow.dispatcher.subscriptions;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class SubscriptionTest {

    private static final Instant ROTATED = Instant.parse("2026-11-26T04:00:00Z");
    private static final Duration GRACE = Duration.ofHours(24);

    private final Subscription created = new Subscription("whs_1", "https://a.example/h", List.of("*"),
            ROTATED.minus(Duration.ofDays(3)).toEpochMilli(), "whsec_first");

    @Test
    void signsWithItsOneSecretBeforeAnyRotation() {
        assertThat(created.signingSecrets(ROTATED, GRACE)).containsExactly("whsec_first");
    }

    @Test
    void signsWithTheNewSecretFirstAndTheOldOneUntilTheGraceHasPassed() {
        Subscription rotated = created.rotated("whsec_second", ROTATED);

        assertThat(rotated.secret()).isEqualTo("whsec_second");
        assertThat(rotated.signingSecrets(ROTATED, GRACE)).containsExactly("whsec_second", "whsec_first");
        assertThat(rotated.signingSecrets(ROTATED.plus(GRACE).minusMillis(1), GRACE))
                .containsExactly("whsec_second", "whsec_first");
        assertThat(rotated.signingSecrets(ROTATED.plus(GRACE), GRACE)).containsExactly("whsec_second");
    }

    @Test
    void aSecondRotationWithinTheGraceDropsTheOldestSecret() {
        Subscription twice = created.rotated("whsec_second", ROTATED)
                .rotated("whsec_third", ROTATED.plusSeconds(60));

        assertThat(twice.signingSecrets(ROTATED.plusSeconds(61), GRACE)).containsExactly("whsec_third", "whsec_second");
    }
}
