package io.orderflow.dispatcher.subscriptions;

import io.orderflow.schemas.requests.WebhookSubscriptionRules;
import java.util.List;

/**
 * A webhook subscription as stored on {@code webhook-subscriptions} (key: {@link #id}). The secret is stored with it
 * and shown to the caller only once, in the creation response.
 *
 * @param events    event names, or {@code ["*"]} for every event
 * @param createdAt epoch milliseconds
 */
public record Subscription(String id, String url, List<String> events, long createdAt, String secret) {

    public static final String ALL_EVENTS = WebhookSubscriptionRules.ALL_EVENTS;

    public boolean wants(String event) {
        return events.contains(ALL_EVENTS) || events.contains(event);
    }

    /** The subscription as the API shows it: never with its secret. */
    public View view() {
        return new View(id, url, events, createdAt);
    }

    public record View(String id, String url, List<String> events, long createdAt) {
    }
}
