package io.orderflow.gateway.auth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * Rule 5 of Authentication: more than {@value #LIMIT} wrong guesses at the shared password (bearer values without the
 * token prefix, and failed sign-ins) within {@link #WINDOW} from one address get 429. A sliding window per client
 * address; while an address is over the limit even the right password is refused, so guessing cannot go on.
 *
 * <p>An IPv6 client is counted by its /64: one subscriber or host usually holds a whole /64, so counting each of its
 * addresses apart would give it 2^64 budgets. The windows live in a Caffeine cache capped at {@value #MAX_TRACKED}
 * addresses (the least recently used go first) whose entries expire a window after their last use: a spray of
 * addresses cannot grow memory without bound, and the eviction runs on Caffeine's maintenance (on the common pool),
 * not in the request that records a guess on the event loop.
 */
@Component
public class GuessLimiter {

    static final int LIMIT = 20;
    static final Duration WINDOW = Duration.ofMinutes(15);
    /** The most addresses (or IPv6 /64s) tracked at once. */
    static final int MAX_TRACKED = 100_000;
    /** Bytes of an IPv6 address that name its /64. */
    private static final int IPV6_PREFIX_BYTES = 8;

    private final Clock clock;
    private final Cache<String, Deque<Long>> guesses;

    @Autowired
    public GuessLimiter(Clock clock) {
        this(clock, MAX_TRACKED);
    }

    GuessLimiter(Clock clock, int maxTracked) {
        this.clock = clock;
        this.guesses = Caffeine.newBuilder()
                .maximumSize(maxTracked)
                .expireAfterAccess(WINDOW)
                .ticker(() -> clock.millis() * 1_000_000)
                .build();
    }

    /** Throws {@link TooManyGuesses} when {@code address} has used up its guesses. */
    public void check(String address) {
        Deque<Long> window = guesses.getIfPresent(key(address));
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
        Deque<Long> window = guesses.get(key(address), a -> new ArrayDeque<>());
        synchronized (window) {
            long now = clock.millis();
            prune(window, now);
            window.addLast(now);
        }
    }

    /** How many addresses are tracked, after the cache's pending maintenance (for tests of the bound). */
    long tracked() {
        guesses.cleanUp();
        return guesses.estimatedSize();
    }

    /**
     * The key an address is counted under: an IPv6 address's /64 ({@code 2001:db8:1:2:0:0:0:0/64}); anything else
     * as it is. Only a literal is parsed ({@link InetAddress#getByName} parses a string with a colon as an IPv6
     * literal, without a name lookup); an IPv4-mapped IPv6 address counts as its IPv4 address.
     */
    static String key(String address) {
        if (address == null || address.indexOf(':') < 0) {
            return address;
        }
        String literal = address.startsWith("[") && address.endsWith("]")
                ? address.substring(1, address.length() - 1) : address;
        int zone = literal.indexOf('%');
        if (zone >= 0) {
            literal = literal.substring(0, zone);
        }
        if (!literal.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.')) {
            return address;
        }
        try {
            InetAddress parsed = InetAddress.getByName(literal);
            if (parsed instanceof Inet4Address) {
                return parsed.getHostAddress();
            }
            byte[] prefix = Arrays.copyOf(Arrays.copyOf(parsed.getAddress(), IPV6_PREFIX_BYTES), 16);
            return InetAddress.getByAddress(prefix).getHostAddress() + "/64";
        } catch (UnknownHostException e) {
            return address;
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
