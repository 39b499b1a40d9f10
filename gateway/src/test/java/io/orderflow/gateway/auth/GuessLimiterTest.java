package io.orderflow.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.assertThatNoException;

import io.orderflow.kafka.testing.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The limiter's keys and its bound; the 429 itself over HTTP is in AuthFlowsTest and CrossSiteAndProxyTest. */
class GuessLimiterTest {

    private final ManualClock clock = new ManualClock();

    @Test
    void an_ipv6_client_is_counted_by_its_64_and_an_ipv4_client_by_its_address() {
        assertThat(GuessLimiter.key("2001:db8:1:2:aaaa:bbbb:cccc:dddd")).isEqualTo("2001:db8:1:2:0:0:0:0/64");
        assertThat(GuessLimiter.key("2001:DB8:1:2::1")).isEqualTo("2001:db8:1:2:0:0:0:0/64");
        assertThat(GuessLimiter.key("[2001:db8:1:2::1]")).isEqualTo("2001:db8:1:2:0:0:0:0/64");
        assertThat(GuessLimiter.key("fe80::1%eth0")).isEqualTo("fe80:0:0:0:0:0:0:0/64");
        assertThat(GuessLimiter.key("2001:db8:1:3::1")).isNotEqualTo(GuessLimiter.key("2001:db8:1:2::1"));
        assertThat(GuessLimiter.key("::ffff:198.51.100.7")).isEqualTo("198.51.100.7");
        assertThat(GuessLimiter.key("198.51.100.7")).isEqualTo("198.51.100.7");
        assertThat(GuessLimiter.key("unknown")).isEqualTo("unknown");
        assertThat(GuessLimiter.key("not:an:address:host.example")).isEqualTo("not:an:address:host.example");
    }

    @Test
    void addresses_of_one_64_share_a_budget_that_the_window_gives_back() {
        GuessLimiter limiter = new GuessLimiter(clock);
        for (int guess = 0; guess < GuessLimiter.LIMIT; guess++) {
            limiter.take("2001:db8:77:1::" + Integer.toHexString(guess + 1));
        }
        assertThatThrownBy(() -> limiter.take("2001:db8:77:1:ffff::1"))
                .isInstanceOf(GuessLimiter.TooManyGuesses.class);
        assertThatNoException().isThrownBy(() -> limiter.take("2001:db8:77:2::1"));

        clock.advance(GuessLimiter.WINDOW.plus(Duration.ofSeconds(1)));
        assertThatNoException().isThrownBy(() -> limiter.take("2001:db8:77:1:ffff::1"));
    }

    @Test
    void guesses_judged_at_once_from_one_address_cannot_together_pass_the_limit() throws Exception {
        GuessLimiter limiter = new GuessLimiter(clock);
        int threads = 8;
        int attempts = 200;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger judged = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                running.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < attempts / threads; i++) {
                        try {
                            limiter.take("198.51.100.9");
                            judged.incrementAndGet(); // a wrong password: the guess stays counted
                        } catch (GuessLimiter.TooManyGuesses e) {
                            refused.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : running) {
                future.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(judged).hasValue(GuessLimiter.LIMIT);
        assertThat(refused).hasValue(attempts - GuessLimiter.LIMIT);
    }

    @Test
    void a_right_guess_is_handed_back_and_does_not_count() {
        GuessLimiter limiter = new GuessLimiter(clock);
        for (int i = 0; i < 100; i++) {
            limiter.take("198.51.100.10").right();
        }
        for (int guess = 0; guess < GuessLimiter.LIMIT; guess++) {
            limiter.take("198.51.100.10");
        }
        assertThatThrownBy(() -> limiter.take("198.51.100.10")).isInstanceOf(GuessLimiter.TooManyGuesses.class);
    }

    @Test
    void a_spray_of_addresses_stays_within_the_bound() {
        GuessLimiter limiter = new GuessLimiter(clock, 1_000);
        for (int i = 0; i < 20_000; i++) {
            limiter.take("10." + (i >> 16 & 255) + "." + (i >> 8 & 255) + "." + (i & 255));
        }
        assertThat(limiter.tracked()).isLessThanOrEqualTo(1_000);
        // an address that keeps guessing is still limited
        for (int guess = 0; guess < GuessLimiter.LIMIT; guess++) {
            limiter.take("203.0.113.5");
        }
        assertThatThrownBy(() -> limiter.take("203.0.113.5")).isInstanceOf(GuessLimiter.TooManyGuesses.class);
    }
}
