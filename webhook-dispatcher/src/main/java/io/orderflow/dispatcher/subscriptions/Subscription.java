package io.orderflow.dispatcher.subscriptions;

import io.orderflow.dispatcher.deliveries.SubscriptionHealth;
import io.orderflow.schemas.requests.WebhookSubscriptionRules;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A webhook subscription as stored on {@code webhook-subscriptions} (key: {@link #id}). The secret is stored with it
 * and shown to the caller only once, in the creation (or rotation) response.
 *
 * @param events         event names, or {@code ["*"]} for every event
 * @param createdAt      epoch milliseconds
 * @param previousSecret the secret replaced by the last rotation, still signing alongside the new one for the grace
 *                       period; {@code null} before any rotation
 * @param rotatedAt      epoch milliseconds of the last rotation, {@code null} before any
 */
public record Subscription(String id, String url, List<String> events, long createdAt, String secret,
                           String previousSecret, Long rotatedAt) {

    public static final String ALL_EVENTS = WebhookSubscriptionRules.ALL_EVENTS;

    public Subscription(String id, String url, List<String> events, long createdAt, String secret) {
        this(id, url, events, createdAt, secret, null, null);
    }

    public boolean wants(String event) {
        return events.contains(ALL_EVENTS) || events.contains(event);
    }

    /** This subscription signing with {@code newSecret} from {@code at} on, and with its current one for a while. */
    public Subscription rotated(String newSecret, Instant at) {
        return new Subscription(id, url, events, createdAt, newSecret, secret, at.toEpochMilli());
    }

    /**
     * The secrets a delivery sent at {@code now} is signed with: the current one first, then the one it replaced
     * while less than {@code grace} has passed since the rotation.
     */
    public List<String> signingSecrets(Instant now, Duration grace) {
        boolean overlapping = previousSecret != null && rotatedAt != null
                && now.isBefore(Instant.ofEpochMilli(rotatedAt).plus(grace));
        return overlapping ? List.of(secret, previousSecret) : List.of(secret);
    }

    /** The subscription as the API shows it: never with its secret. */
    public View view() {
        return new View(id, url, events, createdAt);
    }

    public record View(String id, String url, List<String> events, long createdAt) {
    }

    /** The subscription as the list and the read show it: with its health, never with its secret. */
    public Shown shown(SubscriptionHealth.Status status) {
        return new Shown(id, url, events, createdAt, status.health(), status.lastSuccessAt());
    }

    /**
     * @param health        {@code ok} or {@code failing} (see {@link SubscriptionHealth})
     * @param lastSuccessAt epoch milliseconds of the latest delivered attempt, {@code null} when none is known
     */
    public record Shown(String id, String url, List<String> events, long createdAt, String health,
                        Long lastSuccessAt) {
    }
}
