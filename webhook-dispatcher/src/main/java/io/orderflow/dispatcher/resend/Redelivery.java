package io.orderflow.dispatcher.resend;

import io.orderflow.dispatcher.DispatcherProperties;
import io.orderflow.dispatcher.deliveries.Delivery;
import io.orderflow.dispatcher.deliveries.DeliveryStatus;
import io.orderflow.dispatcher.deliveries.DeliveryStore;
import io.orderflow.dispatcher.dispatch.WebhookSender;
import io.orderflow.dispatcher.subscriptions.Subscription;
import io.orderflow.dispatcher.subscriptions.SubscriptionStore;
import io.orderflow.kafka.tracing.TraceHeaders;
import io.orderflow.schemas.json.Json;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Sends one settled delivery again, at an operator's request: the same delivery id and body, signed now with the
 * subscription's current secrets, with a {@code traceparent} that is a new span in the trace the delivery was last
 * sent in ({@link ResendTrace}), tried once while the caller waits (no retries). The outcome is a new attempt in the
 * delivery's record, which carries that {@code traceparent}: {@code attempts} goes up by one and the status, response
 * status and error are this attempt's; {@code deliveredAt} is this attempt's time when it succeeded, and stays what it
 * was when it failed. Its delivery lag runs from the request, not from the event.
 *
 * <p>A delivery still {@code pending} is not sent: its own retries are under way, and a second sender would race them
 * for the record. Neither is one this instance is already redelivering.
 */
@Component
public class Redelivery {

    private static final Logger log = LoggerFactory.getLogger(Redelivery.class);

    /** What came of a request. */
    public sealed interface Result {
    }

    public record NotFound(String error) implements Result {
    }

    public record Conflict(String error) implements Result {
    }

    public record Done(Delivery delivery) implements Result {
    }

    private final SubscriptionStore subscriptions;
    private final DeliveryStore deliveries;
    private final WebhookSender sender;
    private final Clock clock;
    private final Duration rotationGrace;
    private final Set<String> underWay = ConcurrentHashMap.newKeySet();

    public Redelivery(SubscriptionStore subscriptions, DeliveryStore deliveries, WebhookSender sender, Clock clock,
                      DispatcherProperties properties) {
        this.subscriptions = subscriptions;
        this.deliveries = deliveries;
        this.sender = sender;
        this.clock = clock;
        this.rotationGrace = properties.rotationGrace();
    }

    public CompletableFuture<Result> redeliver(String subscriptionId, String deliveryId) {
        Optional<Subscription> subscription = subscriptions.find(subscriptionId);
        if (subscription.isEmpty()) {
            return done(new NotFound("Subscription " + subscriptionId + " not found"));
        }
        Optional<Delivery> found = deliveries.find(subscriptionId, deliveryId);
        if (found.isEmpty()) {
            return done(new NotFound("Delivery " + deliveryId + " not found"));
        }
        Delivery delivery = found.get();
        if (!delivery.settled()) {
            return done(new Conflict("Delivery " + deliveryId + " is pending: its retries are under way"));
        }
        if (!underWay.add(deliveryId)) {
            return done(new Conflict("Delivery " + deliveryId + " is being redelivered"));
        }
        try {
            long requestedAt = clock.millis();
            // A new span in the trace the delivery was last sent in; a new trace where its record carries none.
            String traceparent = ResendTrace.newSpanIn(deliveries.traceparent(subscriptionId, deliveryId).orElse(null));
            byte[] body = Json.MAPPER.writeValueAsBytes(delivery.payload());
            List<String> secrets = subscription.get().signingSecrets(clock.instant(), rotationGrace);
            return sender.send(subscription.get().url(), secrets, delivery.event(), deliveryId, body, traceparent,
                            () -> { })
                    .thenCompose(outcome -> {
                        Delivery attempt = new Delivery(delivery.id(), delivery.subscriptionId(), delivery.event(),
                                delivery.orderId(), delivery.payload(),
                                outcome.delivered() ? DeliveryStatus.DELIVERED : DeliveryStatus.FAILED,
                                delivery.attempts() + 1, outcome.status(), outcome.error(), delivery.createdAt(),
                                outcome.delivered() ? Long.valueOf(clock.millis()) : delivery.deliveredAt());
                        try (TraceHeaders.LogContext ignored =
                                     TraceHeaders.logContext(delivery.orderId(), traceparent)) {
                            log.info("Delivery {} redelivered on request: {}", deliveryId,
                                    outcome.delivered() ? "delivered" : outcome.error());
                        }
                        return deliveries.record(attempt, traceparent, requestedAt);
                    })
                    .<Result>thenApply(Done::new)
                    .whenComplete((result, failure) -> underWay.remove(deliveryId));
        } catch (RuntimeException e) {
            underWay.remove(deliveryId);
            throw e;
        }
    }

    private static CompletableFuture<Result> done(Result result) {
        return CompletableFuture.completedFuture(result);
    }
}
