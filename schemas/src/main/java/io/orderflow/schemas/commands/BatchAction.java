package io.orderflow.schemas.commands;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.orderflow.schemas.flows.FlowVersion;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;

/**
 * What a batch does to each order it matched, carried by the order's command ({@link OrderCommand.ApplyBatchAction}).
 * Sealed: the order's agent switches over it exhaustively, so an action nobody carries out does not compile.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = BatchAction.Cancel.class, name = BatchAction.CANCEL),
        @JsonSubTypes.Type(value = BatchAction.DeliverEvent.class, name = BatchAction.DELIVER_EVENT),
        @JsonSubTypes.Type(value = BatchAction.DecideApproval.class, name = BatchAction.DECIDE_APPROVAL),
        @JsonSubTypes.Type(value = BatchAction.RetryIncident.class, name = BatchAction.RETRY_INCIDENT),
        @JsonSubTypes.Type(value = BatchAction.Migrate.class, name = BatchAction.MIGRATE),
})
public sealed interface BatchAction {

    String CANCEL = "cancel";
    String DELIVER_EVENT = "deliver_event";
    String DECIDE_APPROVAL = "decide_approval";
    String RETRY_INCIDENT = "retry_incident";
    String MIGRATE = "migrate";

    /** The action's name on the wire and in the API ({@code cancel}, {@code deliver_event}, ...). */
    String name();

    /** Cancel the order unless it has ended, for {@code reason}. */
    record Cancel(String reason) implements BatchAction {
        @Override
        public String name() {
            return CANCEL;
        }
    }

    /** Deliver {@code event} with {@code payload} (an object) to the node waiting for it. */
    record DeliverEvent(String event, JsonNode payload) implements BatchAction {
        @Override
        public String name() {
            return DELIVER_EVENT;
        }
    }

    /**
     * Decide the pending approval of node {@code nodeId}.
     *
     * @param decision {@code approved} or {@code rejected}
     * @param by       the decider to record, resolved by the gateway from whoever started the batch
     */
    record DecideApproval(String nodeId, String decision, String by, String note) implements BatchAction {
        @Override
        public String name() {
            return DECIDE_APPROVAL;
        }
    }

    /** Retry the order's open incident (its set-aside record is applied again). */
    record RetryIncident() implements BatchAction {
        @Override
        public String name() {
            return RETRY_INCIDENT;
        }
    }

    /**
     * Migrate the order to version {@code toVersion} of flow {@code flowId} ({@link OrderCommand.MigrateOrder}); an
     * order of another flow is refused.
     *
     * @param flow the version as the gateway resolved it when the batch was created, which the order's agent needs
     */
    record Migrate(String flowId, int toVersion, Map<String, String> mapping, boolean dryRun, FlowVersion flow)
            implements BatchAction {

        public Migrate {
            mapping = mapping == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(mapping));
        }

        @Override
        public String name() {
            return MIGRATE;
        }
    }
}
