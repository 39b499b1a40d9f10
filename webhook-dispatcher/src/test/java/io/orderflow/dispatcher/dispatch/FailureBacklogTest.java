package io.orderflow.dispatcher.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * The brake on failed attempts that wait to be handed to their retry topics: the attempt listeners are paused once
 * more than the limit wait, resumed below half of it, and let go when no hand-over comes for a while.
 */
class FailureBacklogTest {

    private final List<String> calls = new CopyOnWriteArrayList<>();
    private final MessageListenerContainer container = (MessageListenerContainer) Proxy.newProxyInstance(
            getClass().getClassLoader(), new Class<?>[] {MessageListenerContainer.class}, (proxy, method, args) -> {
                if (method.getName().equals("pause") || method.getName().equals("resume")) {
                    calls.add(method.getName());
                }
                return null;
            });

    @Test
    void attemptsAreHeldBackWhileMoreThanTheLimitOfFailuresWaitAndGoOnBelowHalfOfIt() {
        FailureBacklog backlog = new FailureBacklog(() -> List.of(container), Clock.systemUTC());

        for (int i = 0; i < FailureBacklog.LIMIT; i++) {
            backlog.failed();
        }
        assertThat(calls).as("at the limit, nothing held back yet").isEmpty();
        backlog.failed();
        backlog.failed();
        assertThat(calls).containsExactly("pause");
        assertThat(backlog.braking()).isTrue();

        for (int i = 0; i < FailureBacklog.LIMIT / 2 + 1; i++) {
            backlog.handedOver();
        }
        assertThat(calls).as("still half the limit or more waiting").containsExactly("pause");
        backlog.handedOver();
        backlog.handedOver();
        assertThat(calls).containsExactly("pause", "resume");
        assertThat(backlog.braking()).isFalse();
    }

    @Test
    void aBrakeThatSeesNoHandOverLetsGoAndCountsAgain() {
        Instant[] now = {Instant.parse("2026-11-27T10:00:00Z")};
        Clock clock = new Clock() {
            @Override
            public ZoneOffset getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return now[0];
            }
        };
        FailureBacklog backlog = new FailureBacklog(() -> List.of(container), clock);
        for (int i = 0; i <= FailureBacklog.LIMIT; i++) {
            backlog.failed();
        }
        assertThat(backlog.braking()).isTrue();

        backlog.releaseWhenStuck();
        assertThat(backlog.braking()).as("not stuck yet").isTrue();
        now[0] = now[0].plus(FailureBacklog.STUCK).plusSeconds(1);
        backlog.releaseWhenStuck();

        assertThat(backlog.braking()).isFalse();
        assertThat(backlog.waiting()).isZero();
        assertThat(calls).containsExactly("pause", "resume");
    }

    @Test
    void onlyTheAttemptListenersAreBraked() {
        assertThat(FailureBacklog.isAttempts("webhook-delivery-attempts")).isTrue();
        assertThat(FailureBacklog.isAttempts("webhook-delivery-attempts-retry-2")).isTrue();
        assertThat(FailureBacklog.isAttempts("webhook-slow-delivery-attempts-retry-0")).isTrue();
        assertThat(FailureBacklog.isAttempts("webhook-delivery-attempts-dlt")).isFalse();
        assertThat(FailureBacklog.isAttempts("webhook-fan-out")).isFalse();
    }
}
