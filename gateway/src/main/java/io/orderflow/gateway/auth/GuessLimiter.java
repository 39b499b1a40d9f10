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
 * address; while an address is over the limit even the right password is refused, so guessing cannot go on. Each
 * guess is counted before it is judged and handed back when it was right, so the bound holds however many guesses
 * are judged at once.
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

    /**
     * Counts one guess from {@code address} before it is judged, or throws {@link TooManyGuesses} when the address has
     * used up its guesses. The check and the count are one step under the window's lock, so guesses judged at the same
     * time (several password hashes in flight) cannot together pass the limit. A guess that turns out right is handed
     * back with {@link Guess#right()}.
     */
    public Guess take(String address) {
        Deque<Long> window = guesses.get(key(address), a -> new ArrayDeque<>());
        synchronized (window) {
            long now = clock.millis();
            prune(window, now);
            if (window.size() >= LIMIT) {
                long retryAfterMillis = window.peekFirst() + WINDOW.toMillis() - now;
                throw new TooManyGuesses(Math.max(1, (retryAfterMillis + 999) / 1000));
            }
            window.addLast(now);
            return new Guess(window, now);
        }
    }

    /** A guess counted by {@link #take}: it stays counted unless it was right. */
    public static final class Guess {

        private final Deque<Long> window;
        private final long at;

        private Guess(Deque<Long> window, long at) {
            this.window = window;
            this.at = at;
        }

        /** The guess was right: it no longer counts against the address. */
        public void right() {
            synchronized (window) {
                window.removeLastOccurrence(at);
            }
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
