package io.orderflow.dispatcher.deliveries;

import io.orderflow.dispatcher.DispatcherProperties;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Whether each subscription's receiver is taking its deliveries: {@code failing} while each of its last
 * {@code failingAfter} attempted deliveries has its latest attempt failed (a delivery still retrying counts as soon as
 * an attempt of it failed; one that has not been tried yet does not count), {@code ok} otherwise, also while fewer
 * deliveries than that were tried. One successful attempt makes it {@code ok} again. Nothing is disabled: a failing
 * subscription keeps getting its deliveries and their retries.
 *
 * <p>Fed with every delivery record the store reads back from {@code webhook-deliveries}, whichever instance wrote
 * it, so each instance sees every subscription's health; after a restart it is rebuilt from the records that are
 * left on the compacted topic (each delivery's latest, in the order they were written). A subscription turning failing
 * and recovering is logged once each, by every instance, but not while the topic is first read back.
 */
@Component
public class SubscriptionHealth {

    private static final Logger log = LoggerFactory.getLogger(SubscriptionHealth.class);

    public static final String OK = "ok";
    public static final String FAILING = "failing";

    /**
     * What the API shows of a subscription's health.
     *
     * @param lastSuccessAt epoch milliseconds of the latest successful attempt this instance knows of, {@code null}
     *                      when none
     */
    public record Status(String health, Long lastSuccessAt) {
    }

    private static final class Tracker {
        /** The latest attempted deliveries, oldest first: whether each one's latest attempt failed. */
        final LinkedHashMap<String, Boolean> recent = new LinkedHashMap<>();
        Long lastSuccessAt;
        boolean failing;
    }

    private final int failingAfter;
    private final Map<String, Tracker> bySubscription = new ConcurrentHashMap<>();

    public SubscriptionHealth(DispatcherProperties properties) {
        this.failingAfter = Math.max(1, properties.failingAfter());
    }

    /**
     * Takes one delivery record as written. {@code live} is false while the store first reads the topic back: the
     * state is rebuilt then, but no transition is logged.
     */
    void observe(String deliveryId, DeliveryStore.Fields delivery, boolean live) {
        Boolean failed = attemptFailed(delivery);
        if (failed == null) {
            return;
        }
        Tracker tracker = bySubscription.computeIfAbsent(delivery.subscriptionId(), ignored -> new Tracker());
        boolean turnedFailing;
        boolean recovered;
        synchronized (tracker) {
            tracker.recent.remove(deliveryId);
            tracker.recent.put(deliveryId, failed);
            while (tracker.recent.size() > failingAfter) {
                tracker.recent.pollFirstEntry();
            }
            if (!failed && delivery.deliveredAt() != null
                    && (tracker.lastSuccessAt == null || delivery.deliveredAt() > tracker.lastSuccessAt)) {
                tracker.lastSuccessAt = delivery.deliveredAt();
            }
            boolean failing = tracker.recent.size() >= failingAfter
                    && tracker.recent.values().stream().allMatch(Boolean::booleanValue);
            turnedFailing = failing && !tracker.failing;
            recovered = !failing && tracker.failing;
            tracker.failing = failing;
        }
        if (live && turnedFailing) {
            log.warn("Webhook subscription {} is failing: its last {} deliveries failed, the latest {} with: {}",
                    delivery.subscriptionId(), failingAfter, deliveryId, delivery.lastError());
        } else if (live && recovered) {
            log.info("Webhook subscription {} recovered: delivery {} was delivered", delivery.subscriptionId(),
                    deliveryId);
        }
    }

    /** True when the record's latest attempt failed, false when it succeeded, null when it tells of no attempt. */
    private static Boolean attemptFailed(DeliveryStore.Fields delivery) {
        if (delivery.attempts() == 0) {
            return null;
        }
        return switch (delivery.status()) {
            case DELIVERED -> false;
            case FAILED -> true;
            case PENDING -> delivery.lastError() != null ? Boolean.TRUE : null;
        };
    }

    public Status of(String subscriptionId) {
        Tracker tracker = bySubscription.get(subscriptionId);
        if (tracker == null) {
            return new Status(OK, null);
        }
        synchronized (tracker) {
            return new Status(tracker.failing ? FAILING : OK, tracker.lastSuccessAt);
        }
    }

    /** How many of {@code subscriptionIds} are failing. */
    public long failing(Collection<String> subscriptionIds) {
        return subscriptionIds.stream().filter(id -> of(id).health().equals(FAILING)).count();
    }

    /** Forgets a deleted subscription. */
    public void forget(String subscriptionId) {
        bySubscription.remove(subscriptionId);
    }
}
