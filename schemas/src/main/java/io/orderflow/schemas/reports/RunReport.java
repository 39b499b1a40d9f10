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
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * What the flow-runner tells the order's agent on {@code run-reports}. Sequenced reports carry
 * {@code (generation, seq)} and apply only when fresh; the others always apply.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = RunReport.NodeDetail.class, name = "node_detail"),
        @JsonSubTypes.Type(value = RunReport.NodeDetails.class, name = "node_details"),
        @JsonSubTypes.Type(value = RunReport.Progress.class, name = "progress"),
        @JsonSubTypes.Type(value = RunReport.WaitRequested.class, name = "wait_requested"),
        @JsonSubTypes.Type(value = RunReport.Continued.class, name = "continued"),
        @JsonSubTypes.Type(value = RunReport.InstanceStatus.class, name = "instance_status"),
        @JsonSubTypes.Type(value = RunReport.Compensated.class, name = "compensated"),
})
public sealed interface RunReport {

    String orderId();

    String instanceId();

    /** Unsequenced: a node patch and an optional log entry, always applied. */
    record NodeDetail(String orderId, String instanceId, String nodeId, NodePatch patch, TimelineEntry log)
            implements RunReport {
    }

    /**
     * Unsequenced: the node details one runner task produced back to back, in order, sent as one record so the agent
     * reads and writes the order once for all of them. Each applies exactly as a {@link NodeDetail} would.
     */
    record NodeDetails(String orderId, String instanceId, List<NodeDetail> details) implements RunReport {

        public NodeDetails {
            details = List.copyOf(details);
        }
    }

    /**
     * Sequenced plan and status: applied only when fresh. {@code nodes} and {@code edges} are the full plan;
     * {@code order} is the order object with its computed amounts; {@code reason} explains a
     * declined, cancelled or failed status.
     *
     * @param at when the run reached {@code status} (epoch milliseconds, the runner's clock): the time the order's
     *           timeline shows for the status, whenever the report arrives. 0 in a report written before it existed.
     */
    record Progress(String orderId, String instanceId, int generation, long seq, OrderStatus status, String reason,
                    Map<String, NodeStatus> nodes, Map<String, EdgeState> edges, JsonNode order, JsonNode vars,
                    long at)
            implements RunReport {
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
}
