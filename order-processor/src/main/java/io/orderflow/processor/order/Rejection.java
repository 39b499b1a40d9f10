package io.orderflow.processor.order;

/** A command the order refuses, with the HTTP status the gateway answers and the one error message. */
public record Rejection(int status, String message) {

    public static Rejection notFound(String orderId) {
        return new Rejection(404, "Order " + orderId + " not found");
    }

    /**
     * A change asked for on a read of the order that is no longer its state ({@code If-Match}): 412, nothing changed.
     * The message names the order's current version.
     */
    public static Rejection staleVersion(String orderId, long expected, long actual) {
        return new Rejection(412, "Order " + orderId + " is at version " + actual + ", not " + expected
                + ": it changed since it was read; read it again and retry");
    }

    public static final Rejection NOT_WAITING_FOR_APPROVAL =
            new Rejection(409, "That node is not waiting for an approval.");

    public static final Rejection IDEMPOTENCY_KEY_REUSED =
            new Rejection(422, "Idempotency-Key was already used with a different request body");

    public static Rejection unknownProposal(String proposalId) {
        return new Rejection(404, "Unknown proposal " + proposalId + ".");
    }

    public static Rejection proposalConfirmed(String proposalId) {
        return new Rejection(409, "Proposal " + proposalId + " was already confirmed.");
    }

    public static final Rejection EMPTY_CHAT = new Rejection(400, "A chat append needs at least one message.");

    public static Rejection unknownIncident(String incidentId) {
        return new Rejection(404, "Incident " + incidentId + " not found");
    }

    public static Rejection incidentClosed(String incidentId, String status) {
        return new Rejection(409, "Incident " + incidentId + " is already " + status + ".");
    }

    public static Rejection incidentWithoutRecord(String incidentId) {
        return new Rejection(409, "Incident " + incidentId + " cannot be retried: its record was not kept.");
    }

    /** A batch's cancel of an order that has ended: nothing to cancel. */
    public static Rejection ended(String orderId, String status) {
        return new Rejection(409, "Order " + orderId + " has already ended: " + status);
    }

    /** A batch's event for an order with no node waiting for it. */
    public static Rejection notWaitingForEvent(String orderId, String event) {
        return new Rejection(409, "No node of order " + orderId + " is waiting for " + event);
    }

    /** A batch's incident retry for an order without an open incident. */
    public static Rejection noOpenIncident(String orderId) {
        return new Rejection(409, "Order " + orderId + " has no open incident");
    }
}
