package io.orderflow.dispatcher.deliveries;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;

/**
 * Webhook deliveries by outcome, counted as their records are written ({@code DeliveryStore.record}, the one place
 * every status change goes through), and new deliveries as they are made ({@link #created}). Meter
 * {@code orderflow.webhook.deliveries{outcome}}: {@code created} (a new delivery, by the fan-out or a replay; most are
 * never written {@code pending}, since their first attempt is made at once), {@code retrying} (an attempt failed and
 * another follows), {@code delivered} (the subscriber answered 2xx) and {@code failed} (no attempt left).
 *
 * <p>Meter {@code orderflow.webhook.delivery.lag}, a histogram: from when the delivery was asked for to the
 * subscriber's 2xx answer, retries included. A delivery made from an order event is asked for at the event's time
 * (its {@code createdAt}, the event's {@code occurredAt}, when the processor decided it); a replayed one when the
 * replay was requested (its {@code createdAt} then); a redelivery when it was requested. It is what a subscriber
 * waits for an event; a growing one means slow subscribers or a dispatcher behind its topic. An old event replayed
 * or redelivered today does not count its age.
 */
public final class DeliveryMeters {

    static final String DELIVERIES = "orderflow.webhook.deliveries";
    static final String LAG = "orderflow.webhook.delivery.lag";

    private final Counter created;
    private final Counter retrying;
    private final Counter delivered;
    private final Counter failed;
    private final Timer lag;

    public DeliveryMeters(MeterRegistry registry) {
        created = counter(registry, "created");
        retrying = counter(registry, "retrying");
        delivered = counter(registry, "delivered");
        failed = counter(registry, "failed");
        lag = Timer.builder(LAG)
                .description("Time from an order event, or a replay or redelivery request, to the 2xx answer")
                .publishPercentileHistogram().register(registry);
    }

    private static Counter counter(MeterRegistry registry, String outcome) {
        return Counter.builder(DELIVERIES).description("Webhook delivery records written, by outcome")
                .tag("outcome", outcome).register(registry);
    }

    /** A new delivery, before anything is tried or written. */
    public void created() {
        created.increment();
    }

    /** A delivery record the broker has taken, of an attempt asked for at {@code askedAt} (epoch milliseconds). */
    public void recorded(Delivery delivery, long askedAt) {
        switch (delivery.status()) {
            case PENDING -> {
                if (delivery.attempts() > 0) {
                    retrying.increment();
                }
            }
            case DELIVERED -> {
                delivered.increment();
                long at = delivery.deliveredAt() == null ? System.currentTimeMillis() : delivery.deliveredAt();
                lag.record(Math.max(0, at - askedAt), TimeUnit.MILLISECONDS);
            }
            case FAILED -> failed.increment();
        }
    }
}
