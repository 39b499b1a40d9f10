package io.orderflow.dispatcher.dispatch;

import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.stereotype.Component;

/**
 * Failed attempts that spring-kafka has not yet handed to their next topic, and the brake on them.
 *
 * <p>A failed attempt fails its listener's future; the listener container then hands the record to the next retry
 * topic on its own consumer thread, one record at a time, each send awaited. A subscriber that fails every delivery
 * at once fails them faster than that: with four subscribers at once, one answering 500, the containers' queues of
 * failed records grew to 81,000 records with their exceptions, and the standalone system's heap went to the garbage
 * collector (2026-11-27, `-Dbench.subscribers=4`, 256 orders in flight). So while more than {@link #LIMIT} failures
 * wait here, the attempt listeners' containers (the lanes and their retry topics) are paused, and they are resumed
 * below half of it: the attempts wait in Kafka, not in the heap. Should a count go astray (a failure never handed
 * over, say in a rebalance), a brake that has seen no hand-over for {@link #STUCK} lets go and starts counting again.
 */
@Component
public class FailureBacklog {

    private static final Logger log = LoggerFactory.getLogger(FailureBacklog.class);

    /** Failures waiting at most; a record with its exception is a few kilobytes. */
    static final int LIMIT = 2_000;
    static final Duration STUCK = Duration.ofSeconds(30);

    private final AtomicInteger waiting = new AtomicInteger();
    private final Supplier<Collection<MessageListenerContainer>> containers;
    private final Clock clock;
    private volatile long lastHandOver;
    private boolean braking;

    @Autowired
    FailureBacklog(KafkaListenerEndpointRegistry registry, Clock clock) {
        this(() -> registry.getListenerContainers().stream()
                .filter(container -> isAttempts(container.getListenerId())).toList(), clock);
    }

    FailureBacklog(Supplier<Collection<MessageListenerContainer>> containers, Clock clock) {
        this.containers = containers;
        this.clock = clock;
        this.lastHandOver = clock.millis();
    }

    /** The lanes' attempt listeners and their retry topics' ones; not the dead-letter handlers, which fail nothing. */
    static boolean isAttempts(String listenerId) {
        return listenerId != null && !listenerId.endsWith("-dlt")
                && (listenerId.startsWith("webhook-delivery-attempts")
                || listenerId.startsWith("webhook-slow-delivery-attempts"));
    }

    /** An attempt's future failed: its record waits to be handed over. */
    void failed() {
        if (waiting.incrementAndGet() > LIMIT) {
            brake();
        }
    }

    /** A failed record was handed to its next topic (or its hand-over failed and it will be read again). */
    void handedOver() {
        lastHandOver = clock.millis();
        if (waiting.decrementAndGet() < LIMIT / 2) {
            release();
        }
    }

    /** Failures waiting now. */
    int waiting() {
        return Math.max(0, waiting.get());
    }

    boolean braking() {
        synchronized (this) {
            return braking;
        }
    }

    /** Lets go of a brake that has seen no hand-over for {@link #STUCK}; otherwise looks again later. */
    void releaseWhenStuck() {
        if (!braking()) {
            return;
        }
        if (clock.millis() - lastHandOver > STUCK.toMillis()) {
            log.warn("Webhook attempts were held back for {} failures waiting, and none was handed over for {} s: "
                    + "going on, counting again", waiting.get(), STUCK.toSeconds());
            waiting.set(0);
            release();
        } else {
            lookAgainLater();
        }
    }

    private void lookAgainLater() {
        CompletableFuture.delayedExecutor(STUCK.toMillis(), TimeUnit.MILLISECONDS).execute(this::releaseWhenStuck);
    }

    private synchronized void brake() {
        if (!braking) {
            braking = true;
            lastHandOver = clock.millis();
            lookAgainLater();
            Collection<MessageListenerContainer> held = containers.get();
            held.forEach(MessageListenerContainer::pause);
            log.warn("{} failed webhook attempts wait to be handed to their retry topics: attempts held back until "
                    + "fewer than {} wait ({})", waiting.get(), LIMIT / 2,
                    held.stream().map(MessageListenerContainer::getListenerId).toList());
        }
    }

    private synchronized void release() {
        if (braking) {
            braking = false;
            containers.get().forEach(MessageListenerContainer::resume);
            log.info("Failed webhook attempts handed over ({} wait): attempts go on", waiting());
        }
    }
}
