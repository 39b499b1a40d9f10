package io.orderflow.dispatcher.dispatch;

import io.orderflow.dispatcher.DispatcherProperties;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.springframework.stereotype.Component;

/**
 * Which lane a subscriber's first attempts take. The fan-out makes first attempts itself and polls again only once
 * every delivery of the last poll has its outcome (as the attempts topic's consumer does with its attempts): one
 * subscriber answering in 2 s (or not at all, until the timeout) would hold every other subscriber's next deliveries
 * that long. So a subscriber that has shown itself slow has its first attempts moved to the slow lane, a topic of its
 * own with its own consumers, where it holds up only other slow subscribers.
 *
 * <p>Slow means: its last answer took longer than {@code slowAfter} (a timeout included), or a request of it has been
 * on the wire longer than that. An answer's time runs from when its request was sent on a connection
 * ({@link Ticket#sent}), not from when the attempt began: a healthy subscriber's burst (a poll brings up to 500
 * attempts, and its host has {@code connectionsPerHost} connections) waits in its host's queue, and that wait says
 * nothing about the subscriber. An attempt that never got its request out (no connection within the timeout, a
 * connect that hung) counts from its start. One answer within {@code slowAfter}, in either lane, makes it fast again.
 * Kept per dispatcher instance and in memory: a restart starts everybody in the fast lane.
 */
@Component
public class SubscriberLanes {

    /**
     * How long a look at the requests on the wire stands for: {@link #isSlow} is asked once per attempt, up to
     * thousands of times a second, and scanning every request under way each time grew with their number squared.
     */
    private static final long RESCAN_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /** One request to a subscriber, from its attempt's start to its outcome. */
    public static final class Ticket {
        private final String subscriptionId;
        private final long startedNanos = System.nanoTime();
        private volatile long sentNanos;

        private Ticket(String subscriptionId) {
            this.subscriptionId = subscriptionId;
        }

        /** The request went out on a connection: from now on its time is the subscriber's. */
        public void sent() {
            sentNanos = System.nanoTime();
        }
    }

    private static final class Health {
        final Set<Ticket> underWay = ConcurrentHashMap.newKeySet();
        volatile boolean lastAnswerSlow;
        volatile long scannedAt;
        volatile boolean slowOnTheWire;
    }

    private final long slowAfterNanos;
    private final Map<String, Health> bySubscription = new ConcurrentHashMap<>();

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
        if (now - health.scannedAt > RESCAN_NANOS) {
            boolean slow = false;
            for (Ticket ticket : health.underWay) {
                long sent = ticket.sentNanos;
                if (sent != 0 && now - sent > slowAfterNanos) {
                    slow = true;
                    break;
                }
            }
            health.slowOnTheWire = slow;
            health.scannedAt = now;
        }
        return health.slowOnTheWire;
    }

    /** An attempt to the subscriber starts; call {@link Ticket#sent} when its request goes out. */
    public Ticket started(String subscriptionId) {
        Ticket ticket = new Ticket(subscriptionId);
        bySubscription.computeIfAbsent(subscriptionId, ignored -> new Health()).underWay.add(ticket);
        return ticket;
    }

    /** The attempt of {@code ticket} has its outcome (an answer, a failure or the timeout). */
    public void finished(Ticket ticket) {
        Health health = bySubscription.get(ticket.subscriptionId);
        if (health != null && health.underWay.remove(ticket)) {
            long sent = ticket.sentNanos;
            long took = System.nanoTime() - (sent != 0 ? sent : ticket.startedNanos);
            health.lastAnswerSlow = took > slowAfterNanos;
        }
    }

    /** Forgets a deleted subscription. */
    public void forget(String subscriptionId) {
        bySubscription.remove(subscriptionId);
    }
}
