package io.orderflow.kafka.limits;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Clock;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * A token bucket per key: {@code perMinute} spread evenly over the minute, and up to {@code burst} at once after a
 * quiet spell. The buckets live in a Caffeine cache capped at {@value #MAX_TRACKED} keys whose entries expire once
 * they would be full again, so a spray of keys cannot grow memory without bound.
 */
public final class RateLimiter {

    static final int MAX_TRACKED = 100_000;

    private final Clock clock;
    private final double perMilli;
    private final double burst;
    private final Cache<String, double[]> buckets;

    public RateLimiter(Clock clock, int perMinute, int burst) {
        this.clock = clock;
        this.perMilli = perMinute / 60_000.0;
        this.burst = Math.max(1, burst);
        this.buckets = Caffeine.newBuilder()
                .maximumSize(MAX_TRACKED)
                .expireAfterAccess(Duration.ofMillis((long) Math.ceil(this.burst / perMilli) + 1))
                .ticker(() -> clock.millis() * 1_000_000)
                .build();
    }

    /**
     * Takes one from {@code key}'s bucket; when it is empty, answers the seconds until one is there again (at least
     * one) and takes nothing.
     */
    public OptionalLong take(String key) {
        double[] bucket = buckets.get(key, k -> new double[] {burst, clock.millis()});
        synchronized (bucket) {
            long now = clock.millis();
            bucket[0] = Math.min(burst, bucket[0] + (now - bucket[1]) * perMilli);
            bucket[1] = now;
            if (bucket[0] >= 1) {
                bucket[0] -= 1;
                return OptionalLong.empty();
            }
            return OptionalLong.of(Math.max(1, (long) Math.ceil((1 - bucket[0]) / perMilli / 1000)));
        }
    }
}
