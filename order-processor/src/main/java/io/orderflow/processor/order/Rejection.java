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

    // ---- migration ----------------------------------------------------------------------------------------

    /** A migration to a version of another flow (a batch's, which names its flow). */
    public static Rejection otherFlow(String orderId, String flowId, String wanted) {
        return new Rejection(422, "Order " + orderId + " runs on flow " + flowId + ", not " + wanted);
    }

    /** A migration to a version made for another order type. */
    public static Rejection otherOrderType(String orderId, String type, String flowId, int version, String versionType) {
        return new Rejection(422, "Version " + version + " of flow " + flowId + " is for " + versionType
                + " orders; order " + orderId + " is a " + type + " order");
    }

    public static Rejection sameVersion(String orderId, String flowId, int version) {
        return new Rejection(409, "Order " + orderId + " is already on version " + version + " of flow " + flowId);
    }

    /** A mapping key the order's current version does not have. */
    public static Rejection unknownSource(String nodeId, String flowId, int version) {
        return new Rejection(422, "The mapping names node " + nodeId + ", which version " + version + " of flow "
                + flowId + " (the order's) does not have");
    }

    /** A mapping target the new version does not have. */
    public static Rejection unknownTarget(String from, String to, String flowId, int version) {
        return new Rejection(422, "The mapping moves node " + from + " to " + to + ", which version " + version
                + " of flow " + flowId + " does not have");
    }

    /** Two nodes would become one. */
    public static Rejection sameTarget(String first, String second, String to) {
        return new Rejection(422, "Nodes " + first + " and " + second + " would both become node " + to
                + "; each node of the new version takes one node");
    }

    /** An order that is not waiting: its run may be between nodes, where the runner alone knows where it stands. */
    public static Rejection notWaitingToMigrate(String orderId, String status) {
        return new Rejection(409, "Order " + orderId + " is " + status
                + "; an order is migrated while it waits at an approval or an event");
    }

    /** The order stands at a node the migration would drop. */
    public static Rejection nodeDropped(String orderId, String nodeId, String flowId, int version) {
        return new Rejection(409, "Order " + orderId + " stands at node " + nodeId + ", which version " + version
                + " of flow " + flowId + " does not have and the mapping does not move; map " + nodeId
                + " to a node of the same type");
    }

    /** The order stands at a node whose type the migration would change. */
    public static Rejection nodeTypeChanged(String orderId, String nodeId, String type, String to, String toType,
                                            int version) {
        return new Rejection(409, "Order " + orderId + " stands at node " + nodeId + " (" + type + "), which would "
                + "become node " + to + " (" + toType + ") in version " + version
                + "; a node the order stands at keeps its type");
    }
}
