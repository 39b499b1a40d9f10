package io.orderflow.dispatcher.deliveries;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Webhook deliveries by outcome, counted as their records are written ({@code DeliveryStore.record}, the one place
 * every status change goes through). Meter {@code orderflow.webhook.deliveries{outcome}}: {@code created} (a new
 * delivery, nothing tried yet), {@code retrying} (an attempt failed and another follows), {@code delivered} (the
 * subscriber answered 2xx) and {@code failed} (no attempt left).
 */
public final class DeliveryMeters {

    static final String DELIVERIES = "orderflow.webhook.deliveries";

    private final Counter created;
    private final Counter retrying;
    private final Counter delivered;
    private final Counter failed;

    public DeliveryMeters(MeterRegistry registry) {
        created = counter(registry, "created");
        retrying = counter(registry, "retrying");
        delivered = counter(registry, "delivered");
        failed = counter(registry, "failed");
    }

    private static Counter counter(MeterRegistry registry, String outcome) {
        return Counter.builder(DELIVERIES).description("Webhook delivery records written, by outcome")
                .tag("outcome", outcome).register(registry);
    }

    /** A delivery record the broker has taken. */
    public void recorded(Delivery delivery) {
        switch (delivery.status()) {
            case PENDING -> (delivery.attempts() == 0 ? created : retrying).increment();
            case DELIVERED -> delivered.increment();
            case FAILED -> failed.increment();
        }
    }
}
