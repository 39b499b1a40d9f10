package io.orderflow.schemas.commands;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.model.ChatMessage;
import java.util.List;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;

/**
 * What the gateway asks of an order's agent. Sealed: the processor switches over it exhaustively,
 * so a command nobody handles does not compile.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = OrderCommand.StartOrder.class, name = "start_order"),
        @JsonSubTypes.Type(value = OrderCommand.DeliverEvent.class, name = "deliver_event"),
        @JsonSubTypes.Type(value = OrderCommand.DecideApproval.class, name = "decide_approval"),
        @JsonSubTypes.Type(value = OrderCommand.CancelOrder.class, name = "cancel_order"),
        @JsonSubTypes.Type(value = OrderCommand.AppendChat.class, name = "append_chat"),
        @JsonSubTypes.Type(value = OrderCommand.ConfirmProposal.class, name = "confirm_proposal"),
        @JsonSubTypes.Type(value = OrderCommand.RetryIncident.class, name = "retry_incident"),
        @JsonSubTypes.Type(value = OrderCommand.DismissIncident.class, name = "dismiss_incident"),
        @JsonSubTypes.Type(value = OrderCommand.ApplyBatchAction.class, name = "apply_batch_action"),
        @JsonSubTypes.Type(value = OrderCommand.MigrateOrder.class, name = "migrate_order"),
})
public sealed interface OrderCommand {

    String orderId();

    /**
     * Start an order on a pinned flow version. The gateway has validated the input and resolved the version.
     *
     * @param input       the validated order start input ({@code type}, {@code customerId}, {@code currency}, ...)
     * @param vars        seeds the run's variables (an object, possibly empty)
     * @param fingerprint SHA-256 (hex) of the canonical JSON of flow id, version, input and vars
     * @param idempotent  true when the order id was derived from an {@code Idempotency-Key}
     * @param source      where the order came from when not through the API (email intake); {@code null} otherwise
     */
    record StartOrder(String orderId, FlowVersion flow, JsonNode input, JsonNode vars, String fingerprint,
                      boolean idempotent, OrderSource source) implements OrderCommand {

        /** The contract's currency of an order whose start input names none. */
        public static final String DEFAULT_CURRENCY = "USD";

        /** A start through the API: no {@link OrderSource}. */
        public StartOrder(String orderId, FlowVersion flow, JsonNode input, JsonNode vars, String fingerprint,
                          boolean idempotent) {
            this(orderId, flow, input, vars, fingerprint, idempotent, null);
        }

        /**
         * The start of order {@code orderId} on {@code flow}, from whichever channel (the API, mail intake, the
         * replenishment run). Only a keyed start ({@code idempotent}: its id derives from a key that a repeat sends
         * again) carries the {@link StartFingerprint} of the flow, the version asked for, {@code input} and
         * {@code vars}: a start without a key gets a new random id, which nothing repeats, so canonicalising and
         * hashing its body would be work for nothing.
         *
         * @param askedVersion the version the request asked for, {@code null} for the latest published
         * @param source       where the order came from when not through the API; {@code null} otherwise
         */
        public static StartOrder of(String orderId, FlowVersion flow, Integer askedVersion, JsonNode input,
                                    JsonNode vars, boolean idempotent, OrderSource source) {
            String fingerprint = idempotent ? StartFingerprint.of(flow.flowId(), askedVersion, input, vars) : null;
            return new StartOrder(orderId, flow, input, vars, fingerprint, idempotent, source);
        }
    }

    /** Deliver a named business event to the node waiting for it. */
    record DeliverEvent(String orderId, String event, JsonNode payload) implements OrderCommand {
    }

    /**
     * Decide an approval.
     *
     * @param decision        {@code approved} or {@code rejected}
     * @param by              the decider to record, already resolved by the gateway from the caller
     * @param expectedVersion the order's version the caller read ({@code If-Match}): the decision is refused when the
     *                        order has changed since; {@code null} decides whatever the version
     */
    record DecideApproval(String orderId, String nodeId, String decision, String by, String note,
                          Long expectedVersion) implements OrderCommand {

        /** A decision made whatever the order's version. */
        public DecideApproval(String orderId, String nodeId, String decision, String by, String note) {
            this(orderId, nodeId, decision, by, note, null);
        }
    }

    /**
     * Cancel the order unless it has ended.
     *
     * @param expectedVersion as {@link DecideApproval#expectedVersion}
     */
    record CancelOrder(String orderId, String reason, Long expectedVersion) implements OrderCommand {

        /**
         * The reason recorded for a cancel that gives none (or a blank one): the contract's default of the REST
         * route, which the order's agent also records for a command that arrives without one.
         */
        public static final String DEFAULT_REASON = "Cancelled via API";

        /** A cancel whatever the order's version. */
        public CancelOrder(String orderId, String reason) {
            this(orderId, reason, null);
        }
    }

    /**
     * Append messages to the order's ops chat (the last 100 are kept). Any order that exists takes them, ended or not:
     * people ask about finished orders too. The agent stamps each message's {@code at}.
     */
    record AppendChat(String orderId, List<ChatMessage> messages) implements OrderCommand {

        public AppendChat {
            messages = messages == null ? List.of() : List.copyOf(messages);
        }
    }

    /**
     * Mark a chat proposal confirmed, once the decide or cancel it proposed has been carried out. An unknown proposal,
     * or one already confirmed, is refused.
     */
    record ConfirmProposal(String orderId, String proposalId) implements OrderCommand {
    }

    /**
     * Apply an open incident's set-aside record again: the order resumes where it stood when it was set aside, or
     * becomes an incident again with the new cause. An unknown incident, or one no longer open, is refused.
     */
    record RetryIncident(String orderId, String incidentId) implements OrderCommand {
    }

    /** Close an open incident without applying its record again: the order stays as the incident left it. */
    record DismissIncident(String orderId, String incidentId, String note) implements OrderCommand {
    }

    /**
     * One order's part of batch {@code batchId}: its action, applied at most once however often it is sent. The agent
     * remembers the batches that acted on the order, so a repeat (a batch that goes on from its last checkpoint after
     * a restart) is answered as done and changes nothing; the timeline entry of the action names the batch.
     */
    record ApplyBatchAction(String orderId, String batchId, BatchAction action) implements OrderCommand {
    }

    /**
     * Move a running order onto another published version of its flow, as the gateway resolved it: the order's open
     * waits and their deadlines are carried over through {@code mapping}, and its next node tasks run on {@code to}.
     *
     * @param mapping old node id to new node id; a node not named keeps its id when the new version has it
     * @param dryRun  answer what would happen and change nothing
     */
    record MigrateOrder(String orderId, FlowVersion to, Map<String, String> mapping, boolean dryRun)
            implements OrderCommand {

        public MigrateOrder {
            mapping = mapping == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(mapping));
        }
    }
}
