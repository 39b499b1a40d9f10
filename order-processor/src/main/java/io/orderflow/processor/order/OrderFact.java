package io.orderflow.processor.order;

import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.model.ChatMessage;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.NodePatch;
import io.orderflow.schemas.model.Rollback;
import io.orderflow.schemas.model.TimelineEntry;
import io.orderflow.schemas.reports.RunReport;
import tools.jackson.databind.JsonNode;

import java.util.List;
import java.util.Map;

/**
 * What happened to an order, decided by {@link OrderDecider} and applied to the state by {@link OrderApplier}.
 * Sealed, so the applier's switch is exhaustive.
 */
public sealed interface OrderFact {

    /** A new order, stored {@code queued} with every node pending. */
    record OrderStarted(OrderState state) implements OrderFact {
    }

    /**
     * A fresh sequenced report: plan, order, vars and (unless the order ended) status; {@code at} is when the run
     * reached that status.
     */
    record ProgressApplied(RunReport.Progress report, long at) implements OrderFact {
    }

    /** An unsequenced node detail report with its optional log entry. */
    record NodePatched(String nodeId, NodePatch patch, TimelineEntry log) implements OrderFact {
    }

    record WaitOpened(Wait opened, long at) implements OrderFact {
    }

    /**
     * A wait closed on {@code branch}. {@code varsKey} names the run variable that receives the payload
     * (a delivered event), or is {@code null}; {@code batchId} names the batch that closed it, or is {@code null}.
     */
    record WaitClosed(String nodeId, String branch, String varsKey, JsonNode payload, long at, String batchId)
            implements OrderFact {

        public WaitClosed(String nodeId, String branch, String varsKey, JsonNode payload, long at) {
            this(nodeId, branch, varsKey, payload, at, null);
        }
    }

    /**
     * Cancelled for {@code reason}; {@code by} is who asked (an email, {@code token:<name>}, ...), {@code batchId} the
     * batch it was part of, or {@code null}.
     */
    record OrderCancelled(String reason, String by, long at, String batchId) implements OrderFact {

        public OrderCancelled(String reason, String by, long at) {
            this(reason, by, at, null);
        }
    }

    /** Batch {@code batchId} acted on the order: a command of it sent again changes nothing. */
    record BatchApplied(String batchId) implements OrderFact {
    }

    record RunContinued(String instanceId, int generation, String previousInstanceId, long at) implements OrderFact {
    }

    record RollbackPolled(int attempt) implements OrderFact {
    }

    record RollbackSettled(Rollback rollback, long at) implements OrderFact {
    }

    record CompensationLogged(int released, int voided, int shipmentsCancelled, long at) implements OrderFact {
    }

    /** Ops chat messages appended, each stamped with the time it was appended. */
    record ChatAppended(List<ChatMessage> messages) implements OrderFact {
    }

    /** A chat proposal was carried out by a person (decide or cancel) and is now {@code confirmed}. */
    record ProposalConfirmed(String proposalId) implements OrderFact {
    }

    /**
     * A record about the order could not be processed ({@code source}, {@code cause}): the order fails as an
     * incident, unless it had already ended, in which case only its timeline says so.
     */
    record IncidentRaised(String source, String cause, long at) implements OrderFact {
    }

    /**
     * An operator retried incident {@code incidentId}, alone or as part of batch {@code batchId} ({@code null}: alone):
     * the order is put back as it stood when it was set aside ({@code stood}), keeping its timeline, and the set-aside
     * record is applied again.
     */
    record IncidentRetried(String incidentId, OrderState stood, String by, long at, String batchId)
            implements OrderFact {

        public IncidentRetried(String incidentId, OrderState stood, String by, long at) {
            this(incidentId, stood, by, at, null);
        }
    }

    /** An operator dismissed incident {@code incidentId} with a note: the order stays as the incident left it. */
    record IncidentDismissed(String incidentId, String by, String note, long at) implements OrderFact {
    }

    /**
     * The order moved to another version of its flow ({@code flow}, as the state keeps it), by {@code by}, alone or as
     * part of batch {@code batchId}: {@code carried} maps each node kept (old id to new id), {@code edges} is the new
     * version's edges with their states.
     */
    record OrderMigrated(FlowVersion flow, int fromVersion, Map<String, String> carried, Map<String, EdgeState> edges,
                         String by, long at, String batchId) implements OrderFact {
    }
}
