package io.orderflow.processor.order;

import io.orderflow.schemas.model.Incident;
import io.orderflow.processor.approvals.ApprovalRow;
import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.tasks.NodeTask;

/**
 * A message to send or a side store to change because of a decision; carried out by the stream processor in the
 * same transaction as the state change.
 */
public sealed interface Effect {

    record SendTask(NodeTask task) implements Effect {
    }

    record PublishEvent(OrderEvent event) implements Effect {
    }

    /** Inserts a {@code pending} approval row (before the wait it belongs to). */
    record OpenApproval(ApprovalRow row) implements Effect {
    }

    /** Moves an approval row from {@code pending} to {@code status}. */
    record CloseApproval(String nodeId, String status, long decidedAt, String decidedBy, String note)
            implements Effect {
    }

    /** Re-keys the approval row of node {@code from} to node {@code to} (a migration renamed the node). */
    record MoveApproval(String from, String to) implements Effect {
    }

    record ScheduleDeadline(long dueAt, String nodeId) implements Effect {
    }

    record ClearDeadline(long dueAt, String nodeId) implements Effect {
    }

    /** The next instance-status poll of a failed run. */
    record SchedulePoll(long dueAt, int attempt) implements Effect {
    }

    /** Lists the order among the incidents operators see. */
    record RecordIncident(Incident incident) implements Effect {
    }

    /** Stores an order's document text under its reference, once ({@link io.orderflow.schemas.documents.Documents}). */
    record StoreDocument(String ref, String text) implements Effect {
    }
}
