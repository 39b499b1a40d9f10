package io.orderflow.processor.order;

import static io.orderflow.schemas.commands.RejectionKind.ALREADY_EXISTS;
import static io.orderflow.schemas.commands.RejectionKind.INCOMPATIBLE;
import static io.orderflow.schemas.commands.RejectionKind.INVALID_ARGUMENT;
import static io.orderflow.schemas.commands.RejectionKind.INVALID_STATE;
import static io.orderflow.schemas.commands.RejectionKind.NOT_FOUND;
import static io.orderflow.schemas.commands.RejectionKind.PRECONDITION_FAILED;
import static io.orderflow.schemas.commands.RejectionKind.PROCESSING_ERROR;
import static io.orderflow.schemas.commands.RejectionKind.TOO_LARGE;

import io.orderflow.schemas.commands.RejectionKind;
import io.orderflow.schemas.json.Json;
import tools.jackson.databind.node.ObjectNode;

/**
 * A command the order refuses: why, as a {@link RejectionKind} the gateway turns into its answer, and the one error
 * message.
 *
 * @param path the JSON Pointer of the field at fault in the request ({@code /payload/amount}), {@code null} when the
 *             refusal is not about one field
 */
public record Rejection(RejectionKind kind, String message, String path) {

    public Rejection(RejectionKind kind, String message) {
        this(kind, message, null);
    }

    /**
     * The reply's body: {@code { error }}, and for a field at fault {@code issues: [{ path, message }]} as well, the
     * shape of the 400 an invalid request body gets.
     */
    public ObjectNode body() {
        ObjectNode body = Json.object().put("error", message);
        if (path != null) {
            body.putArray("issues").addObject().put("path", path).put("message", message);
        }
        return body;
    }

    /**
     * The HTTP status a gateway that reads no {@code kind} answers this rejection with ({@code CommandReply#status}).
     * The gateway's own mapping of kinds to statuses is the one that answers; the two agree (a test checks it).
     */
    public int compatibleStatus() {
        return switch (kind) {
            case INVALID_ARGUMENT -> 400;
            case NOT_FOUND -> 404;
            case INVALID_STATE -> 409;
            case PRECONDITION_FAILED -> 412;
            case ALREADY_EXISTS, INCOMPATIBLE, TOO_LARGE -> 422;
            case PROCESSING_ERROR -> 500;
        };
    }

    public static Rejection notFound(String orderId) {
        return new Rejection(NOT_FOUND, "Order " + orderId + " not found");
    }

    /**
     * A change asked for on a read of the order that is no longer its state ({@code If-Match}): 412, nothing changed.
     * The message names the order's current version.
     */
    public static Rejection staleVersion(String orderId, long expected, long actual) {
        return new Rejection(PRECONDITION_FAILED, "Order " + orderId + " is at version " + actual + ", not " + expected
                + ": it changed since it was read; read it again and retry");
    }

    public static final Rejection NOT_WAITING_FOR_APPROVAL =
            new Rejection(INVALID_STATE, "That node is not waiting for an approval.");

    public static final Rejection IDEMPOTENCY_KEY_REUSED =
            new Rejection(ALREADY_EXISTS, "Idempotency-Key was already used with a different request body");

    public static Rejection unknownProposal(String proposalId) {
        return new Rejection(NOT_FOUND, "Unknown proposal " + proposalId + ".");
    }

    public static Rejection proposalConfirmed(String proposalId) {
        return new Rejection(INVALID_STATE, "Proposal " + proposalId + " was already confirmed.");
    }

    public static final Rejection EMPTY_CHAT =
            new Rejection(INVALID_ARGUMENT, "A chat append needs at least one message.");

    public static Rejection unknownIncident(String incidentId) {
        return new Rejection(NOT_FOUND, "Incident " + incidentId + " not found");
    }

    public static Rejection incidentClosed(String incidentId, String status) {
        return new Rejection(INVALID_STATE, "Incident " + incidentId + " is already " + status + ".");
    }

    public static Rejection incidentWithoutRecord(String incidentId) {
        return new Rejection(INVALID_STATE, "Incident " + incidentId + " cannot be retried: its record was not kept.");
    }

    /** A batch's cancel of an order that has ended: nothing to cancel. */
    public static Rejection ended(String orderId, String status) {
        return new Rejection(INVALID_STATE, "Order " + orderId + " has already ended: " + status);
    }

    /** A batch's event for an order with no node waiting for it. */
    public static Rejection notWaitingForEvent(String orderId, String event) {
        return new Rejection(INVALID_STATE, "No node of order " + orderId + " is waiting for " + event);
    }

    /** A batch's incident retry for an order without an open incident. */
    public static Rejection noOpenIncident(String orderId) {
        return new Rejection(INVALID_STATE, "Order " + orderId + " has no open incident");
    }

    // ---- migration ----------------------------------------------------------------------------------------

    /** A migration to a version of another flow (a batch's, which names its flow). */
    public static Rejection otherFlow(String orderId, String flowId, String wanted) {
        return new Rejection(INCOMPATIBLE, "Order " + orderId + " runs on flow " + flowId + ", not " + wanted);
    }

    /** A migration to a version made for another order type. */
    public static Rejection otherOrderType(String orderId, String type, String flowId, int version, String versionType) {
        return new Rejection(INCOMPATIBLE, "Version " + version + " of flow " + flowId + " is for " + versionType
                + " orders; order " + orderId + " is a " + type + " order");
    }

    public static Rejection sameVersion(String orderId, String flowId, int version) {
        return new Rejection(INVALID_STATE, "Order " + orderId + " is already on version " + version + " of flow "
                + flowId);
    }

    /** A mapping key the order's current version does not have. */
    public static Rejection unknownSource(String nodeId, String flowId, int version) {
        return new Rejection(INCOMPATIBLE, "The mapping names node " + nodeId + ", which version " + version
                + " of flow " + flowId + " (the order's) does not have");
    }

    /** A mapping target the new version does not have. */
    public static Rejection unknownTarget(String from, String to, String flowId, int version) {
        return new Rejection(INCOMPATIBLE, "The mapping moves node " + from + " to " + to + ", which version " + version
                + " of flow " + flowId + " does not have");
    }

    /** Two nodes would become one. */
    public static Rejection sameTarget(String first, String second, String to) {
        return new Rejection(INCOMPATIBLE, "Nodes " + first + " and " + second + " would both become node " + to
                + "; each node of the new version takes one node");
    }

    /** An order that is not waiting: its run may be between nodes, where the runner alone knows where it stands. */
    public static Rejection notWaitingToMigrate(String orderId, String status) {
        return new Rejection(INVALID_STATE, "Order " + orderId + " is " + status
                + "; an order is migrated while it waits at an approval or an event");
    }

    /** The order stands at a node the migration would drop. */
    public static Rejection nodeDropped(String orderId, String nodeId, String flowId, int version) {
        return new Rejection(INVALID_STATE, "Order " + orderId + " stands at node " + nodeId + ", which version "
                + version + " of flow " + flowId + " does not have and the mapping does not move; map " + nodeId
                + " to a node of the same type");
    }

    /** The order stands at a node whose type the migration would change. */
    public static Rejection nodeTypeChanged(String orderId, String nodeId, String type, String to, String toType,
                                            int version) {
        return new Rejection(INVALID_STATE, "Order " + orderId + " stands at node " + nodeId + " (" + type
                + "), which would become node " + to + " (" + toType + ") in version " + version
                + "; a node the order stands at keeps its type");
    }

    // ---- the agent ----------------------------------------------------------------------------------------

    /** A command written to the topic under another key than its order's id. */
    public static final Rejection NOT_KEYED_BY_ORDER =
            new Rejection(INVALID_ARGUMENT, "A command must be keyed by its order's id");

    /** A change that would make the order's stored state larger than the agent keeps. */
    public static Rejection tooLarge(String message) {
        return new Rejection(TOO_LARGE, message);
    }

    /** A command the agent could not decide or apply; the order is as it was. */
    public static Rejection engineError(String cause) {
        return new Rejection(PROCESSING_ERROR, "Engine error: " + cause);
    }
}
