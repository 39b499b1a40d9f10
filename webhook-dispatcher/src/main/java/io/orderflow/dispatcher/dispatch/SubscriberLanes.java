package io.orderflow.dispatcher.dispatch;

import io.orderflow.dispatcher.DispatcherProperties;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.stereotype.Component;

/**
 * Which lane a subscriber's first attempts take. The attempts topic is consumed with asynchronous acknowledgements,
 * and its consumer polls again only once every attempt of the last poll has settled: one subscriber answering in
 * 2 s (or not at all, until the timeout) would hold every other subscriber's next deliveries that long. So a
 * subscriber that has shown itself slow has its first attempts moved to the slow lane, a topic of its own with its
 * own consumers, where it holds up only other slow subscribers.
 *
 * <p>Slow means: its last answer took longer than {@code slowAfter} (a timeout included), or a request of it has been
 * under way longer than that. How many requests are under way does not count: a healthy subscriber's burst waits
 * for its host's connections (at most {@code connectionsPerHost}) only briefly. One answer within {@code slowAfter},
 * in either lane, makes it fast again. Kept per dispatcher instance and in memory: a restart starts everybody in the
 * fast lane.
 */
@Component
public class SubscriberLanes {

    private static final class Health {
        /** Start ({@link System#nanoTime}) of each request under way, by ticket. */
        final Map<Long, Long> underWay = new ConcurrentHashMap<>();
        volatile boolean lastAnswerSlow;
    }

    private final long slowAfterNanos;
    private final Map<String, Health> bySubscription = new ConcurrentHashMap<>();
    private final AtomicLong tickets = new AtomicLong();

    public SubscriberLanes(DispatcherProperties properties) {
        this.slowAfterNanos = properties.slowAfter().toNanos();
    }

    public boolean isSlow(String subscriptionId) {
        Health health = bySubscription.get(subscriptionId);
        if (health == null) {
            return false;
        }
        if (health.lastAnswerSlow) {
            return true;
        }
        long now = System.nanoTime();
        return health.underWay.values().stream().anyMatch(start -> now - start > slowAfterNanos);
    }

    /** A request to the subscriber starts; pass the ticket to {@link #finished}. */
    public long started(String subscriptionId) {
        long ticket = tickets.incrementAndGet();
        bySubscription.computeIfAbsent(subscriptionId, ignored -> new Health()).underWay.put(ticket, System.nanoTime());
        return ticket;
    }

    /** The request of {@code ticket} has its outcome (an answer, a failure or the timeout). */
    public void finished(String subscriptionId, long ticket) {
        Health health = bySubscription.get(subscriptionId);
        Long start = health == null ? null : health.underWay.remove(ticket);
        if (start != null) {
            health.lastAnswerSlow = System.nanoTime() - start > slowAfterNanos;
        }
    }

    /** Forgets a deleted subscription. */
    public void forget(String subscriptionId) {
        bySubscription.remove(subscriptionId);
    }
}
