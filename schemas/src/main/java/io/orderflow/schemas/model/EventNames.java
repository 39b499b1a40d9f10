package io.orderflow.schemas.model;

/** Business event names (such as {@code payment.received}) and where a delivered event's payload is kept. */
public final class EventNames {

    private EventNames() {
    }

    /**
     * The run variable a delivered event's payload is stored under: each run of non-alphanumeric characters becomes
     * one {@code _} ({@code payment.received} is {@code vars.payment_received}).
     */
    public static String varsKey(String event) {
        return event.replaceAll("[^A-Za-z0-9]+", "_");
    }
}
