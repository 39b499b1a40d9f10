package io.orderflow.schemas.model;

/**
 * An order set aside because a record about it could not be processed: the order is failed with the cause as its
 * reason, the record is committed, and its partition moves on. Listed to operators at {@code GET /api/v1/incidents}.
 *
 * @param id        {@code <orderId>:<createdAt>}
 * @param source    which service and what record: {@code order-processor run report progress},
 *                  {@code flow-runner task StartRun}, ...
 * @param cause     what went wrong, as the logs say it
 * @param createdAt epoch milliseconds
 */
public record Incident(String id, String orderId, String source, String cause, long createdAt) {

    public static Incident of(String orderId, String source, String cause, long at) {
        return new Incident(orderId + ":" + at, orderId, source, cause, at);
    }
}
