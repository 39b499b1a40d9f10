package io.orderflow.dispatcher.dispatch;

/**
 * Topics only the dispatcher uses, so they are not in the shared registry; the dispatcher creates them itself.
 * Key: delivery id. Value: {@link io.orderflow.dispatcher.deliveries.DeliveryTask}.
 */
public final class DispatcherTopics {

    /** One record per delivery to do; its retry topics are {@code -retry-0} .. {@code -retry-<n-1>}, then {@code -dlt}. */
    public static final String DELIVERY_ATTEMPTS = "webhook-delivery-attempts";

    /**
     * First attempts to subscribers that have shown themselves slow (see {@link SubscriberLanes}); retried through
     * their own retry topics, {@code -retry-0} .. {@code -retry-<n-1>}, then {@code -dlt}.
     */
    public static final String SLOW_DELIVERY_ATTEMPTS = "webhook-delivery-attempts-slow";

    private DispatcherTopics() {
    }
}
