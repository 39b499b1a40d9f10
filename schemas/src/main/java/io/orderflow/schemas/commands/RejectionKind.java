package io.orderflow.schemas.commands;

/**
 * Why the order's agent refused a command, as a kind the gateway turns into its answer; the reply's {@code error}
 * says it in words. Zeebe's rejection types name the same things (camunda/camunda, {@code RejectionType}).
 */
public enum RejectionKind {

    /** The command itself is wrong whatever the order's state: an empty chat append, a payment reference not valid. */
    INVALID_ARGUMENT,
    /** No order, incident or chat proposal by that id. */
    NOT_FOUND,
    /**
     * The order (or its incident, its proposal) is not in a state that takes the command: no node waits for the
     * approval or the event, the order has ended, the incident or proposal is closed already.
     */
    INVALID_STATE,
    /** The order has changed since the caller read it ({@code If-Match}); nothing changed. */
    PRECONDITION_FAILED,
    /** The order an {@code Idempotency-Key} names already exists, started by a different request. */
    ALREADY_EXISTS,
    /**
     * Arguments that are well formed but do not fit the order: a migration to another flow's version or another order
     * type's, a mapping that names nodes the versions do not have.
     */
    INCOMPATIBLE,
    /** The change would make the order's stored state larger than the agent keeps; nothing changed. */
    TOO_LARGE,
    /** The agent could not decide or apply the command; the order is as it was. */
    PROCESSING_ERROR
}
