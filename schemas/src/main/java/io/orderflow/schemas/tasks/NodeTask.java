package io.orderflow.schemas.tasks;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.orderflow.schemas.flows.FlowVersion;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;

/** Work for the flow-runner on {@code node-tasks}, keyed by order id. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = NodeTask.StartRun.class, name = "start_run"),
        @JsonSubTypes.Type(value = NodeTask.Advance.class, name = "advance"),
        @JsonSubTypes.Type(value = NodeTask.ResumeNode.class, name = "resume_node"),
        @JsonSubTypes.Type(value = NodeTask.TerminateRun.class, name = "terminate_run"),
        @JsonSubTypes.Type(value = NodeTask.QueryInstance.class, name = "query_instance"),
        @JsonSubTypes.Type(value = NodeTask.ForgetRun.class, name = "forget_run"),
        @JsonSubTypes.Type(value = NodeTask.ReviveRun.class, name = "revive_run"),
        @JsonSubTypes.Type(value = NodeTask.MigrateRun.class, name = "migrate_run"),
})
public sealed interface NodeTask {

    String orderId();

    /**
     * Start the first run instance of an order (generation 1).
     *
     * @param order        the order object: {@code id, type, title, customerId, currency, lines, documentRef,
     *                     meta}
     * @param vars         the run's initial variables
     * @param documentText the text {@code order.documentRef} refers to, which the runner stores once; or null
     */
    record StartRun(String orderId, String instanceId, FlowVersion flow, JsonNode order, JsonNode vars,
                    @JsonInclude(JsonInclude.Include.NON_NULL) String documentText)
            implements NodeTask {

        public StartRun(String orderId, String instanceId, FlowVersion flow, JsonNode order, JsonNode vars) {
            this(orderId, instanceId, flow, order, vars, null);
        }
    }

    /** The runner's own next step: continue executing the instance where the previous task stopped. */
    record Advance(String orderId, String instanceId) implements NodeTask {
    }

    /**
     * Resume a waiting node on a branch (approval: {@code approved|rejected|escalated}; event:
     * {@code received|timeout}) with the payload that becomes the node's output.
     */
    record ResumeNode(String orderId, String instanceId, String nodeId, String branch, JsonNode payload)
            implements NodeTask {
    }

    /** Stop the instance at once and compensate what is still open. */
    record TerminateRun(String orderId, String instanceId, String reason) implements NodeTask {
    }

    /** The processor's poll of a failed run: answered with a {@code RunReport.InstanceStatus}. */
    record QueryInstance(String orderId, String instanceId, int attempt) implements NodeTask {
    }

    /** The order was archived after its retention: the runner drops its instance and any timer of it. */
    record ForgetRun(String orderId) implements NodeTask {
    }

    /**
     * An operator retried the incident the runner raised (or the one that ended the run): the instance is put back as
     * it stood before it was set aside, and {@code task}, the task that could not be handled, is handled again
     * ({@code null} when a timer was set aside: it fires again).
     */
    record ReviveRun(String orderId, String instanceId, JsonNode task) implements NodeTask {
    }

    /**
     * The order was migrated to another version of its flow: the instance (waiting at a node) goes on with
     * {@code flow}, its nodes, outputs and waiting node renamed through {@code mapping} (old id to new id, every node
     * the migration keeps, renamed or not).
     */
    record MigrateRun(String orderId, String instanceId, FlowVersion flow, Map<String, String> mapping)
            implements NodeTask {

        public MigrateRun {
            mapping = mapping == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(mapping));
        }
    }
}
