package io.orderflow.schemas.reports;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.NodePatch;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.Rollback;
import io.orderflow.schemas.model.TimelineEntry;
import io.orderflow.schemas.model.WaitRequest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * What the flow-runner tells the order's agent on {@code run-reports}. Sequenced reports carry
 * {@code (generation, seq)} and apply only when fresh; the others always apply.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = RunReport.NodeDetail.class, name = "node_detail"),
        @JsonSubTypes.Type(value = RunReport.Batch.class, name = "batch"),
        @JsonSubTypes.Type(value = RunReport.Progress.class, name = "progress"),
        @JsonSubTypes.Type(value = RunReport.WaitRequested.class, name = "wait_requested"),
        @JsonSubTypes.Type(value = RunReport.Continued.class, name = "continued"),
        @JsonSubTypes.Type(value = RunReport.InstanceStatus.class, name = "instance_status"),
        @JsonSubTypes.Type(value = RunReport.Compensated.class, name = "compensated"),
        @JsonSubTypes.Type(value = RunReport.Incident.class, name = "incident"),
})
public sealed interface RunReport {

    String orderId();

    String instanceId();

    /** Unsequenced: a node patch and an optional log entry, always applied. */
    record NodeDetail(String orderId, String instanceId, String nodeId, NodePatch patch, TimelineEntry log)
            implements RunReport {
    }

    /**
     * The reports one runner task (or timer) produced, in order, as one record: the agent reads the order once,
     * applies each report exactly as it would apply it alone (sequenced ones only when fresh), and then writes the
     * order, its index row and one {@code order-updates} notice once for the lot. A storefront run that goes from
     * start to end in one task is one record instead of one per status and node. Batches do not nest.
     */
    record Batch(String orderId, String instanceId, List<RunReport> reports) implements RunReport {

        public Batch {
            reports = List.copyOf(reports);
            if (reports.stream().anyMatch(Batch.class::isInstance)) {
                throw new IllegalArgumentException("A batch of run reports cannot hold another batch");
            }
        }

        /**
         * What one task produced as the records to send: nothing, the one report, or one batch of them all. A
         * snapshot that a later snapshot of the same instance in the batch supersedes goes without its plan, order
         * and vars ({@link Progress#statusOnly}): the later one carries all of them, and the agent applies it before
         * anyone can read the order.
         */
        public static List<RunReport> of(List<RunReport> reports) {
            if (reports.size() < 2) {
                return List.copyOf(reports);
            }
            List<RunReport> sent = new ArrayList<>(reports.size());
            Set<String> snapshotLater = new HashSet<>();
            for (RunReport report : reports.reversed()) {
                if (report instanceof Progress progress && !snapshotLater.add(progress.instanceId())) {
                    sent.addFirst(progress.statusOnly());
                } else {
                    sent.addFirst(report);
                }
            }
            RunReport first = reports.getFirst();
            return List.of(new Batch(first.orderId(), first.instanceId(), sent));
        }
    }

    /** The reports this record carries, in the order they apply: a batch's, or this one alone. */
    default List<RunReport> unpacked() {
        return this instanceof Batch batch ? batch.reports() : List.of(this);
    }

    /**
     * Sequenced plan and status: applied only when fresh. {@code nodes} and {@code edges} are the full plan;
     * {@code order} is the order object with its computed amounts; {@code reason} explains a
     * declined, cancelled or failed status. {@code nodes}, {@code edges}, {@code order} and {@code vars} are
     * {@code null} in a snapshot that a later one in the same {@link Batch} supersedes: unchanged.
     *
     * @param at when the run reached {@code status} (epoch milliseconds, the runner's clock): the time the order's
     *           timeline shows for the status, whenever the report arrives. 0 in a report written before it existed.
     */
    record Progress(String orderId, String instanceId, int generation, long seq, OrderStatus status, String reason,
                    Map<String, NodeStatus> nodes, Map<String, EdgeState> edges, JsonNode order, JsonNode vars,
                    long at)
            implements RunReport {

        /** This report without its plan, order and vars, which the agent then leaves as they are. */
        public Progress statusOnly() {
            return new Progress(orderId, instanceId, generation, seq, status, reason, null, null, null, null, at);
        }
    }

    /** A node asks the agent to open a wait (approval row first for an approval). */
    record WaitRequested(String orderId, String instanceId, int generation, WaitRequest request) implements RunReport {
    }

    /** The run continues as a new instance; ignored unless {@code generation} is newer. */
    record Continued(String orderId, String instanceId, int generation, String previousInstanceId)
            implements RunReport {
    }

    /**
     * Answer to a {@code QueryInstance} poll.
     *
     * @param state    {@code running}, {@code errored}, {@code terminated} or {@code complete}
     * @param rollback how the rollback settled, or {@code null} when the runtime does not say
     */
    record InstanceStatus(String orderId, String instanceId, int generation, String state, Rollback rollback)
            implements RunReport {
    }

    /** What a terminate compensated: held stock released, authorizations voided, booked shipments cancelled. */
    record Compensated(String orderId, String instanceId, int released, int voided, int shipmentsCancelled)
            implements RunReport {
    }

    /**
     * The runner could not handle a task or timer of the order, retries included, and set the order aside: the agent
     * fails the order with {@code cause} as an incident instead of waiting for reports that will not come.
     *
     * @param instanceId the instance the runner held, or {@code null} when it had none yet
     * @param source     what could not be handled, such as {@code task start_run} or {@code timer retry}
     * @param record     the task that could not be handled, as JSON, so a retry can hand it back; {@code null} for
     *                   a timer (the runner keeps it with the instance)
     * @param topic      where that task was read, with its partition and offset; {@code null} for a timer
     */
    record Incident(String orderId, String instanceId, String source, String cause, JsonNode record, String topic,
                    Integer partition, Long offset) implements RunReport {

        public Incident(String orderId, String instanceId, String source, String cause) {
            this(orderId, instanceId, source, cause, null, null, null, null);
        }
    }
}
