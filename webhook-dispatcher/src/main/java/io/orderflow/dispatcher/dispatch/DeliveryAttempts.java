package io.orderflow.dispatcher.dispatch;

import io.orderflow.dispatcher.DispatcherProperties;
import io.orderflow.dispatcher.deliveries.DeliveryStatus;
import io.orderflow.dispatcher.deliveries.DeliveryStore;
import io.orderflow.dispatcher.deliveries.DeliveryTask;
import io.orderflow.dispatcher.subscriptions.Subscription;
import io.orderflow.dispatcher.subscriptions.SubscriptionStore;
import io.orderflow.kafka.tracing.TraceHeaders;
import io.orderflow.schemas.json.Json;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.retrytopic.RetryTopicHeaders;
import org.springframework.stereotype.Component;

/**
 * Tries one delivery per record of the attempts topics and of their retry topics (one listener per lane serves its
 * topic and retry topics; see {@link RetryTopics}). Asynchronous: the HTTP call does not hold the consumer thread,
 * and the requests of one poll go out together. The container polls again only when all of them have settled, so a
 * subscriber known to be slow has its first attempts moved to the slow lane ({@link SubscriberLanes}). A failure is
 * thrown back to the container, which moves the record to the next retry topic, or to the dead-letter topic after the
 * last retry, where {@link #onExhausted} records it {@code failed}.
 */
@Component
public class DeliveryAttempts {

    private static final Logger log = LoggerFactory.getLogger(DeliveryAttempts.class);

    private static final Duration SETTLED_KEPT = Duration.ofSeconds(5);

    /** On an attempts record whose first attempt the fan-out made: why it failed, and the answer's status if any. */
    static final String TRIED_ERROR_HEADER = "orderflow-tried-error";
    static final String TRIED_STATUS_HEADER = "orderflow-tried-status";

    private final SubscriptionStore subscriptions;
    private final DeliveryStore deliveries;
    private final WebhookSender sender;
    private final SubscriberLanes lanes;
    private final FailureBacklog backlog;
    private final KafkaTemplate<String, String> kafka;
    private final Clock clock;
    private final Duration rotationGrace;

    /**
     * The attempts under way here and those settled in the last {@link #SETTLED_KEPT}, by delivery, incarnation and
     * attempt: an attempt record read again (a rebalance hands a partition over before its offset was committed) is
     * not sent a second time while the first is running or until the delivery store has its outcome.
     */
    private final Map<String, CompletableFuture<Void>> attempting = new ConcurrentHashMap<>();

    public DeliveryAttempts(SubscriptionStore subscriptions, DeliveryStore deliveries, WebhookSender sender,
                            SubscriberLanes lanes, FailureBacklog backlog, KafkaTemplate<String, String> kafka,
                            Clock clock, DispatcherProperties properties) {
        this.subscriptions = subscriptions;
        this.deliveries = deliveries;
        this.sender = sender;
        this.lanes = lanes;
        this.backlog = backlog;
        this.kafka = kafka;
        this.clock = clock;
        this.rotationGrace = properties.rotationGrace();
    }

    /** First attempts (and, through the retry topics, the retries) of the fast lane. */
    @KafkaListener(id = "webhook-delivery-attempts", topics = DispatcherTopics.DELIVERY_ATTEMPTS)
    public CompletableFuture<Void> attempt(ConsumerRecord<String, String> record) {
        return counted(attempt(record, DispatcherTopics.DELIVERY_ATTEMPTS.equals(record.topic())));
    }

    /** First attempts (and retries) of subscribers that were slow when their delivery came up. */
    @KafkaListener(id = "webhook-slow-delivery-attempts", topics = DispatcherTopics.SLOW_DELIVERY_ATTEMPTS)
    public CompletableFuture<Void> attemptSlow(ConsumerRecord<String, String> record) {
        return counted(attempt(record, false));
    }

    /** {@code attempt}, its failure counted in the backlog the container works off ({@link FailureBacklog}). */
    private CompletableFuture<Void> counted(CompletableFuture<Void> attempt) {
        return attempt.whenComplete((done, failure) -> {
            if (failure != null) {
                backlog.failed();
            }
        });
    }

    /**
     * The record's trace context goes on the webhook request ({@code traceparent}) and, with the order's id, into the
     * MDC of the lines logged about the attempt.
     */
    private CompletableFuture<Void> attempt(ConsumerRecord<String, String> record, boolean mayChangeLane) {
        String traceparent = TraceHeaders.traceparent(record.headers());
        DeliveryTask task;
        try {
            task = Json.read(record.value(), DeliveryTask.class);
        } catch (RuntimeException e) {
            log.error("Delivery record {} could not be tried", record.key(), e);
            return CompletableFuture.failedFuture(e);
        }
        try (TraceHeaders.LogContext ignored = TraceHeaders.logContext(task.orderId(), traceparent)) {
            return attempt(record, task, traceparent, mayChangeLane);
        }
    }

    private CompletableFuture<Void> attempt(ConsumerRecord<String, String> record, DeliveryTask task,
                                            String traceparent, boolean mayChangeLane) {
        try {
            int attempt = attemptNumber(record.headers());
            Optional<Subscription> subscription = subscriptions.find(task.subscriptionId());
            if (subscription.isEmpty()) {
                // Deleted since the fan-out: it gets nothing more.
                lanes.forget(task.subscriptionId());
                return deliveries.record(task.record(DeliveryStatus.FAILED, attempt - 1, null,
                        "Subscription was deleted", null), traceparent).thenApply(ignored -> null);
            }
            if (deliveries.settled(task.subscriptionId(), task.deliveryId(), task.createdAt())) {
                log.debug("Delivery {} is already settled; not sending it again", task.deliveryId());
                return CompletableFuture.completedFuture(null);
            }
            // The fan-out made this first attempt already: its outcome is recorded here and the retries take over.
            Optional<WebhookSender.Outcome> tried = attempt == 1 ? tried(record.headers()) : Optional.empty();
            if (tried.isEmpty() && mayChangeLane && lanes.isSlow(task.subscriptionId())) {
                // Handed over once the broker has it; only first attempts change lanes, so the attempt count holds.
                // The headers go along: they carry the order's trace context to the request.
                return kafka.send(new ProducerRecord<>(DispatcherTopics.SLOW_DELIVERY_ATTEMPTS, null, record.key(),
                                record.value(), new RecordHeaders(record.headers().toArray())))
                        .thenApply(ignored -> null);
            }
            String key = task.deliveryId() + '@' + task.createdAt() + '#' + attempt;
            CompletableFuture<Void> mine = new CompletableFuture<>();
            CompletableFuture<Void> earlier = attempting.putIfAbsent(key, mine);
            if (earlier != null) {
                log.debug("Delivery {} attempt {} is already under way here; not sending it again", task.deliveryId(),
                        attempt);
                return earlier;
            }
            CompletableFuture<Void> sent;
            try {
                sent = tried.isPresent()
                        ? settle(task, attempt, tried.get(), traceparent)
                        : send(task, subscription.get(), attempt, traceparent);
            } catch (RuntimeException e) {
                attempting.remove(key, mine);
                throw e;
            }
            sent.whenComplete((done, failure) -> {
                CompletableFuture.delayedExecutor(SETTLED_KEPT.toMillis(), TimeUnit.MILLISECONDS)
                        .execute(() -> attempting.remove(key, mine));
                if (failure != null) {
                    mine.completeExceptionally(failure);
                } else {
                    mine.complete(done);
                }
            });
            return mine;
        } catch (RuntimeException e) {
            // Not a subscriber failing (that is an expected outcome, logged in one line below) but a record that
            // could not be tried at all: worth its stack trace, since the retry topics do not log it.
            log.error("Delivery record {} could not be tried", record.key(), e);
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * The first attempt of a delivery the fan-out has just made, sent at once instead of by way of the attempts topic:
     * a delivery that succeeds (nearly all of them) costs one record, its {@code delivered} one, instead of a
     * {@code pending} record, an attempts record and the {@code delivered} one, each written and read back. An
     * attempt that fails is handed to the attempts topic as tried ({@link #TRIED_ERROR_HEADER}), whose listener
     * records it {@code pending} and passes it to the retry topics without sending it again. Completes once the
     * broker has the outcome's record, so the fan-out commits its events only when no delivery of them can be lost.
     */
    public CompletableFuture<Void> first(DeliveryTask task, Subscription subscription, String traceparent) {
        CompletableFuture<WebhookSender.Outcome> sent;
        try {
            sent = post(task, subscription, 1, traceparent);
        } catch (RuntimeException e) {
            log.error("Delivery {} could not be tried at once; handing it to the attempts topic", task.deliveryId(), e);
            return queue(task, DispatcherTopics.DELIVERY_ATTEMPTS, traceparent);
        }
        return sent.exceptionally(failure -> new WebhookSender.Outcome(null, String.valueOf(failure)))
                .thenCompose(outcome -> {
                    try (TraceHeaders.LogContext ignored = TraceHeaders.logContext(task.orderId(), traceparent)) {
                        if (outcome.delivered() || outcome.refused()) {
                            return settle(task, 1, outcome, traceparent);
                        }
                        return handOver(task, traceparent, outcome); // whose listener logs the failure
                    }
                });
    }

    /**
     * Queues an untried delivery on {@code topic} (the attempts topic or the slow lane's), where it is tried, retried
     * and recorded like any delivery: its {@code pending} record first, on the same producer, so no later status can
     * precede it, then its task, which carries {@code traceparent} on to the webhook request.
     */
    public CompletableFuture<Void> queue(DeliveryTask task, String topic, String traceparent) {
        CompletableFuture<?> pending =
                deliveries.record(task.record(DeliveryStatus.PENDING, 0, null, null, null), traceparent);
        CompletableFuture<?> queued = kafka.send(new ProducerRecord<>(topic, null, task.deliveryId(),
                Json.write(task), TraceHeaders.of(traceparent)));
        return CompletableFuture.allOf(pending, queued);
    }

    /**
     * Puts the delivery on the attempts topic with the outcome of the first attempt already made, which its listener
     * records instead of sending again.
     */
    private CompletableFuture<Void> handOver(DeliveryTask task, String traceparent, WebhookSender.Outcome tried) {
        Headers headers = TraceHeaders.of(traceparent);
        headers.add(TRIED_ERROR_HEADER, tried.error().getBytes(StandardCharsets.UTF_8));
        if (tried.status() != null) {
            headers.add(TRIED_STATUS_HEADER, String.valueOf(tried.status()).getBytes(StandardCharsets.UTF_8));
        }
        return kafka.send(new ProducerRecord<>(DispatcherTopics.DELIVERY_ATTEMPTS, null, task.deliveryId(),
                Json.write(task), headers)).thenApply(ignored -> null);
    }

    private CompletableFuture<Void> send(DeliveryTask task, Subscription subscription, int attempt,
                                         String traceparent) {
        return post(task, subscription, attempt, traceparent)
                .thenCompose(outcome -> {
                    try (TraceHeaders.LogContext ignored = TraceHeaders.logContext(task.orderId(), traceparent)) {
                        return settle(task, attempt, outcome, traceparent);
                    }
                });
    }

    private CompletableFuture<WebhookSender.Outcome> post(DeliveryTask task, Subscription subscription, int attempt,
                                                          String traceparent) {
        byte[] body = Json.MAPPER.writeValueAsBytes(task.payload());
        SubscriberLanes.Ticket ticket = lanes.started(task.subscriptionId());
        List<String> secrets = subscription.signingSecrets(clock.instant(), rotationGrace);
        log.debug("Delivery {} attempt {} to subscription {}", task.deliveryId(), attempt, task.subscriptionId());
        return sender.send(subscription.url(), secrets, task.event(), task.deliveryId(), body, traceparent,
                        ticket::sent)
                .whenComplete((outcome, failure) -> lanes.finished(ticket));
    }

    private CompletableFuture<Void> settle(DeliveryTask task, int attempt, WebhookSender.Outcome outcome,
                                           String traceparent) {
        if (outcome.delivered()) {
            return deliveries.record(task.record(DeliveryStatus.DELIVERED, attempt, outcome.status(), null,
                    clock.millis()), traceparent).thenApply(ignored -> null);
        }
        if (outcome.refused()) {
            // The policy judges the resolved address: a retry would be refused the same way, so it is final now.
            log.warn("Delivery {} attempt {} {}", task.deliveryId(), attempt, outcome.error());
            return deliveries.record(task.record(DeliveryStatus.FAILED, attempt, null, outcome.error(), null),
                    traceparent).thenApply(ignored -> null);
        }
        log.warn("Delivery {} attempt {} failed: {}", task.deliveryId(), attempt, outcome.error());
        if (attempt > task.maxRetries()) {
            return CompletableFuture.failedFuture(new DeliveryFailedException.Exhausted(task.deliveryId(), outcome));
        }
        return deliveries.record(task.record(DeliveryStatus.PENDING, attempt, outcome.status(), outcome.error(), null),
                        traceparent)
                .thenCompose(ignored -> CompletableFuture.failedFuture(
                        new DeliveryFailedException(task.deliveryId(), outcome)));
    }

    /** The dead-letter handler: the last attempt failed, or the record could not be tried at all. */
    public void onExhausted(ConsumerRecord<String, String> record) {
        DeliveryTask task = Json.read(record.value(), DeliveryTask.class);
        int attempts = attemptNumber(record.headers()) - 1;
        Integer status = headerString(record.headers(), RetryTopics.RESPONSE_STATUS_HEADER)
                .map(Integer::valueOf).orElse(null);
        String error = headerString(record.headers(), RetryTopics.LAST_ERROR_HEADER)
                .orElse("Delivery could not be attempted");
        log.info("Delivery {} failed after {} attempts: {}", task.deliveryId(), attempts, error);
        deliveries.record(task.record(DeliveryStatus.FAILED, attempts, status, error, null),
                TraceHeaders.traceparent(record.headers())).join();
    }

    /** The outcome of the first attempt the fan-out made, when the record says it made one. */
    private static Optional<WebhookSender.Outcome> tried(Headers headers) {
        return headerString(headers, TRIED_ERROR_HEADER).map(error -> new WebhookSender.Outcome(
                headerString(headers, TRIED_STATUS_HEADER).map(Integer::valueOf).orElse(null), error));
    }

    /** 1 for the first attempt; the retry topics carry the number of the attempt their record is for. */
    static int attemptNumber(Headers headers) {
        Header header = headers.lastHeader(RetryTopicHeaders.DEFAULT_HEADER_ATTEMPTS);
        if (header == null) {
            return 1;
        }
        byte[] value = header.value();
        return value.length == Integer.BYTES ? ByteBuffer.wrap(value).getInt() : Byte.toUnsignedInt(value[0]);
    }

    private static Optional<String> headerString(Headers headers, String name) {
        Header header = headers.lastHeader(name);
        return header == null || header.value() == null || header.value().length == 0
                ? Optional.empty()
                : Optional.of(new String(header.value(), StandardCharsets.UTF_8));
    }
}
