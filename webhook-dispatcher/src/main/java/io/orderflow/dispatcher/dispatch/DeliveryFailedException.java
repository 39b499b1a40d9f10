package io.orderflow.dispatcher.dispatch;

import io.orderflow.dispatcher.dispatch.WebhookSender.Outcome;

/**
 * A delivery attempt failed; thrown so the record moves on to its next retry topic. The outcome travels along in
 * headers (see {@link RetryTopics}) so the dead-letter handler can write the final record.
 */
public class DeliveryFailedException extends RuntimeException {

    private final transient Outcome outcome;

    public DeliveryFailedException(String deliveryId, Outcome outcome) {
        super("Delivery " + deliveryId + " failed: " + outcome.error());
        this.outcome = outcome;
    }

    public Outcome outcome() {
        return outcome;
    }

    /** The attempt that failed was the last one this delivery gets: straight to the dead-letter topic. */
    public static class Exhausted extends DeliveryFailedException {

        public Exhausted(String deliveryId, Outcome outcome) {
            super(deliveryId, outcome);
        }
    }
}
