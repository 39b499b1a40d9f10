package io.orderflow.schemas.model;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * An order set aside because a record about it could not be processed: the order is failed with the cause as its
 * reason, the record is committed, and its partition moves on. Listed to operators at {@code GET /api/v1/incidents};
 * an operator retries it (the record is applied again) or dismisses it with a note.
 *
 * @param id         {@code <orderId>:<createdAt>}
 * @param source     which service and what record: {@code order-processor run report progress},
 *                   {@code flow-runner task StartRun}, ...
 * @param cause      what went wrong, as the logs say it; the latest cause after a retry that failed again
 * @param createdAt  epoch milliseconds
 * @param status     {@code open}, {@code resolved} (retried) or {@code dismissed}; {@code null} reads as open
 * @param topic      the topic the set-aside record was read from, with its partition and offset; {@code null} for a
 *                   timer
 * @param record     the set-aside record as JSON (a run report, a due timer, or the runner's task)
 * @param instanceId the run instance the runner held, for a retry that puts it back
 * @param stood      the order's state just before it was set aside, which a retry restores; not listed
 * @param history    what happened to the incident, oldest first: raised, retried, failed again, dismissed
 */
public record Incident(String id, String orderId, String source, String cause, long createdAt, String status,
                       String topic, Integer partition, Long offset, JsonNode record, String instanceId,
                       JsonNode stood, List<Step> history) {

    public static final String OPEN = "open";
    public static final String RESOLVED = "resolved";
    public static final String DISMISSED = "dismissed";

    /**
     * One thing that happened to an incident.
     *
     * @param action {@code raised}, {@code retried}, {@code failed_again} or {@code dismissed}
     * @param by     who acted (as the gateway authenticated them); {@code null} for the service itself
     * @param cause  the cause, for {@code raised} and {@code failed_again}
     * @param note   the operator's note, for {@code dismissed}
     */
    public record Step(long at, String action, String by, String cause, String note) {
    }

    public Incident {
        history = history == null ? List.of() : List.copyOf(history);
    }

    public static Incident of(String orderId, String source, String cause, long at) {
        return new Incident(orderId + ":" + at, orderId, source, cause, at, OPEN, null, null, null, null, null, null,
                List.of(new Step(at, "raised", null, cause, null)));
    }

    /** The order an incident id names: the id is {@code <orderId>:<createdAt>}; {@code null} when it is not one. */
    public static String orderIdOf(String incidentId) {
        int colon = incidentId == null ? -1 : incidentId.lastIndexOf(':');
        if (colon <= 0 || colon == incidentId.length() - 1) {
            return null;
        }
        for (int i = colon + 1; i < incidentId.length(); i++) {
            if (!Character.isDigit(incidentId.charAt(i))) {
                return null;
            }
        }
        return incidentId.substring(0, colon);
    }

    public boolean open() {
        return status == null || OPEN.equals(status);
    }

    /** How often an operator retried it. */
    public int attempts() {
        return (int) history.stream().filter(step -> "retried".equals(step.action())).count();
    }

    /** Where the set-aside record came from and what it was. */
    public Incident from(String topic, Integer partition, Long offset, JsonNode record, String instanceId,
                         JsonNode stood) {
        return new Incident(id, orderId, source, cause, createdAt, status, topic, partition, offset, record,
                instanceId, stood, history);
    }

    /** With one more step in its history and the status it leaves. */
    public Incident then(String status, Step step) {
        List<Step> steps = new ArrayList<>(history);
        steps.add(step);
        String latestCause = step.cause() != null ? step.cause() : cause;
        return new Incident(id, orderId, source, latestCause, createdAt, status, topic, partition, offset, record,
                instanceId, stood, steps);
    }

    /** As listed to operators: without the order's stored state. */
    public Incident listed() {
        return new Incident(id, orderId, source, cause, createdAt, status == null ? OPEN : status, topic, partition,
                offset, record, instanceId, null, history);
    }
}
