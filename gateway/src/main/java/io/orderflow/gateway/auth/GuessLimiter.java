package io.orderflow.gateway.auth;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/**
 * Rule 5 of Authentication: more than {@value #LIMIT} wrong guesses at the shared password (bearer values without the
 * token prefix, and failed sign-ins) within {@link #WINDOW} from one address get 429. A sliding window per client
 * address; while an address is over the limit even the right password is refused, so guessing cannot go on.
 */
@Component
public class GuessLimiter {

    static final int LIMIT = 20;
    static final Duration WINDOW = Duration.ofMinutes(15);
    /** Bounds memory under a spray of addresses: past this many, windows that have emptied are dropped. */
    private static final int MAX_TRACKED = 100_000;

    private final Clock clock;
    private final Map<String, Deque<Long>> guesses = new ConcurrentHashMap<>();

    public GuessLimiter(Clock clock) {
        this.clock = clock;
    }

    /** Throws {@link TooManyGuesses} when {@code address} has used up its guesses. */
    public void check(String address) {
        Deque<Long> window = guesses.get(address);
        if (window == null) {
            return;
        }
        synchronized (window) {
            long now = clock.millis();
            prune(window, now);
            if (window.size() >= LIMIT) {
                long retryAfterMillis = window.peekFirst() + WINDOW.toMillis() - now;
                throw new TooManyGuesses(Math.max(1, (retryAfterMillis + 999) / 1000));
            }
        }
    }

    /** Counts one wrong guess from {@code address}. */
    public void record(String address) {
        if (guesses.size() >= MAX_TRACKED) {
            long now = clock.millis();
            guesses.values().removeIf(window -> {
                synchronized (window) {
                    prune(window, now);
                    return window.isEmpty();
                }
            });
        }
        Deque<Long> window = guesses.computeIfAbsent(address, a -> new ArrayDeque<>());
        synchronized (window) {
            prune(window, clock.millis());
            window.addLast(clock.millis());
        }
    }

    private static void prune(Deque<Long> window, long now) {
        while (!window.isEmpty() && window.peekFirst() <= now - WINDOW.toMillis()) {
            window.removeFirst();
        }
    }

    /** The answer to an address over the limit: 429 with {@code Retry-After} in seconds. */
    public static final class TooManyGuesses extends org.springframework.security.core.AuthenticationException {

        private final long retryAfterSeconds;

        TooManyGuesses(long retryAfterSeconds) {
            super("Too many wrong bearer values from this address; retry later");
            this.retryAfterSeconds = retryAfterSeconds;
        }

        public long retryAfterSeconds() {
            return retryAfterSeconds;
        }
    }
}
