package io.orderflow.gateway.commands;

import io.orderflow.gateway.api.ApiException;
import io.orderflow.schemas.commands.BatchAction;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.commands.OrderSource;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.ChatMessage;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one translation from a caller's request to the command for the order's agent, whichever channel it came
 * through: the REST routes, the order socket, the ops chat, a signed inbound event, mail intake or a batch. Requests
 * arrive validated against their schema; what differs between channels is only the defaults the contract gives each
 * one, which are named here. What the flow-runner's replenishment run builds too (a start, the default cancel reason)
 * lives with the command in the contract ({@link OrderCommand.StartOrder#of}, {@link OrderCommand.CancelOrder}).
 */
public final class OrderCommands {

    /** The channel a request came through; it decides the defaults the contract gives an omitted field. */
    public enum Channel {
        /** {@code POST /api/v1/orders/...}: Cancel's {@code reason} defaults to {@code Cancelled via API}. */
        API(API_CANCEL_REASON),
        /** The order socket: {@code cancel(reason = 'Cancelled by operator')}. */
        SOCKET(SOCKET_CANCEL_REASON),
        /** The ops chat, whose cancel is a proposal that a person confirms on the order page. */
        CHAT(CHAT_CANCEL_REASON);

        private final String cancelReason;

        Channel(String cancelReason) {
            this.cancelReason = cancelReason;
        }

        /** The reason recorded for a cancel that gives none (or a blank one). */
        public String cancelReason() {
            return cancelReason;
        }
    }

    /** The contract's default cancel reason of the REST route (Cancel), which the order's agent records too. */
    public static final String API_CANCEL_REASON = OrderCommand.CancelOrder.DEFAULT_REASON;
    /** The contract's default cancel reason of the order socket's {@code cancel} method. */
    public static final String SOCKET_CANCEL_REASON = "Cancelled by operator";
    /** The reason of a chat cancel proposal the model gave none for. */
    public static final String CHAT_CANCEL_REASON = "Cancelled from the ops chat";
    /** The decider recorded for the shared password or an open deployment when the body gives no {@code by}. */
    public static final String DEFAULT_DECIDER = "api";
    /** The {@code source} the chat's {@code deliver_event} adds to a payload that names none. */
    public static final String CHAT_EVENT_SOURCE = "chat";

    private OrderCommands() {
    }

    /**
     * Start order {@code orderId} on {@code flow} (the version the request asked for, as resolved) from a validated
     * start request. Only a keyed start ({@code idempotent}: its id derives from an {@code Idempotency-Key}) carries
     * the fingerprint a repeat is compared with.
     */
    public static OrderCommand.StartOrder start(StartRequest request, String orderId, FlowVersion flow,
                                                boolean idempotent) {
        return OrderCommand.StartOrder.of(orderId, flow, request.version(), request.input(), request.vars(),
                idempotent, null);
    }

    /**
     * Mail intake's start: the start request built from the mail, keyed (its id derives from the mail's
     * {@code Message-ID}), with where it came from for the order's timeline.
     */
    public static OrderCommand.StartOrder mailStart(StartRequest request, String orderId, FlowVersion flow,
                                                    String sender, String mailbox) {
        return OrderCommand.StartOrder.of(orderId, flow, request.version(), request.input(), request.vars(), true,
                OrderSource.mail(sender, mailbox));
    }

    /**
     * Deliver an event from a validated {@code { event, payload? }} body (REST, socket, signed inbound events).
     * An omitted payload is an empty object.
     */
    public static OrderCommand.DeliverEvent deliver(String orderId, JsonNode request) {
        return new OrderCommand.DeliverEvent(orderId, request.get("event").asString(),
                request.has("payload") ? request.get("payload") : Json.object());
    }

    /** The chat's {@code deliver_event}: the payload the model gave, marked {@code source: chat} unless it says. */
    public static OrderCommand.DeliverEvent chatDeliver(String orderId, String event, JsonNode payload) {
        ObjectNode marked = payload instanceof ObjectNode given ? given.deepCopy() : Json.object();
        if (!marked.has("source")) {
            marked.put("source", CHAT_EVENT_SOURCE);
        }
        return new OrderCommand.DeliverEvent(orderId, event, marked);
    }

    /**
     * Decide an approval from a validated {@code { decision, by?, note? }} body, with the decider resolved from
     * {@code caller} (see {@link #decider}).
     */
    public static OrderCommand.DecideApproval decide(Caller caller, String orderId, String nodeId, JsonNode request) {
        return decide(caller, orderId, nodeId, request, null);
    }

    /**
     * As {@link #decide(Caller, String, String, JsonNode)}, refused by the order's agent unless the order is at
     * {@code expectedVersion} ({@code If-Match}; {@code null}: any version).
     */
    public static OrderCommand.DecideApproval decide(Caller caller, String orderId, String nodeId, JsonNode request,
                                                     Long expectedVersion) {
        return new OrderCommand.DecideApproval(orderId, nodeId, request.get("decision").asString(),
                decider(caller, text(request, "by")), text(request, "note"), expectedVersion);
    }

    /** Cancel from a validated {@code { reason? }} body, with {@code channel}'s default reason. */
    public static OrderCommand.CancelOrder cancel(Channel channel, String orderId, JsonNode request) {
        return cancel(channel, orderId, request, null);
    }

    /** As {@link #cancel(Channel, String, JsonNode)}, refused unless the order is at {@code expectedVersion}. */
    public static OrderCommand.CancelOrder cancel(Channel channel, String orderId, JsonNode request,
                                                  Long expectedVersion) {
        return new OrderCommand.CancelOrder(orderId, reason(channel, text(request, "reason")), expectedVersion);
    }

    /** The reason a cancel records: the given one, or {@code channel}'s default when it is missing or blank. */
    public static String reason(Channel channel, String given) {
        return given == null || given.isBlank() ? channel.cancelReason() : given;
    }

    /**
     * The decider recorded for an approval: the caller's identity, except for the shared password and an open
     * deployment, where the body's {@code by} is honoured and defaults to {@value #DEFAULT_DECIDER}.
     */
    public static String decider(Caller caller, String requestedBy) {
        boolean anonymous = "open".equals(caller.kind()) || "password".equals(caller.kind());
        if (anonymous || caller.identity() == null) {
            return requestedBy == null || requestedBy.isBlank() ? DEFAULT_DECIDER : requestedBy;
        }
        return caller.identity();
    }

    /** Append one message (the person's, or the assistant's answer) to the order's ops chat. */
    public static OrderCommand.AppendChat appendChat(String orderId, ChatMessage message) {
        return new OrderCommand.AppendChat(orderId, List.of(message));
    }

    /** Mark the chat proposal {@code proposalId} confirmed, once what it proposed was carried out. */
    public static OrderCommand.ConfirmProposal confirmProposal(String orderId, String proposalId) {
        return new OrderCommand.ConfirmProposal(orderId, proposalId);
    }

    /** Apply incident {@code incidentId}'s set-aside record again. */
    public static OrderCommand.RetryIncident retryIncident(String orderId, String incidentId) {
        return new OrderCommand.RetryIncident(orderId, incidentId);
    }

    /** Close incident {@code incidentId} from a validated {@code { note }} body; the note is recorded stripped. */
    public static OrderCommand.DismissIncident dismissIncident(String orderId, String incidentId, JsonNode request) {
        return new OrderCommand.DismissIncident(orderId, incidentId, request.get("note").asString().strip());
    }

    /** One order's part of batch {@code batchId}. */
    public static OrderCommand.ApplyBatchAction batchAction(String orderId, String batchId, BatchAction action) {
        return new OrderCommand.ApplyBatchAction(orderId, batchId, action);
    }

    /**
     * The action of a validated batch body other than a migration ({@link #batchMigrate}): a cancel's reason
     * (required, stripped), an event with its payload ({@code {}} when omitted), or a decision recorded as
     * {@code caller}'s ({@link #decider}, the body has no {@code by}).
     */
    public static BatchAction batchAction(Caller caller, JsonNode request) {
        return switch (request.get("action").asString()) {
            case BatchAction.CANCEL -> new BatchAction.Cancel(request.get("reason").asString().strip());
            case BatchAction.DELIVER_EVENT -> new BatchAction.DeliverEvent(request.get("event").asString(),
                    request.has("payload") ? request.get("payload") : Json.object());
            case BatchAction.DECIDE_APPROVAL -> new BatchAction.DecideApproval(request.get("nodeId").asString(),
                    request.get("decision").asString(), decider(caller, null), text(request, "note"));
            case BatchAction.RETRY_INCIDENT -> new BatchAction.RetryIncident();
            default -> throw ApiException.badRequest("Unknown action");
        };
    }

    /** A batch's migration to {@code flow} (its {@code flowId} and {@code toVersion}, as resolved). */
    public static BatchAction.Migrate batchMigrate(JsonNode request, FlowVersion flow) {
        return new BatchAction.Migrate(request.get("flowId").asString(), request.get("toVersion").asInt(),
                mapping(request), request.path("dryRun").asBoolean(false), flow);
    }

    /** The caller of a mail intake's start: {@code mail:<sender>}, acting as an operator. */
    public static Caller mailSender(String sender) {
        return new Caller("mail", "mail:" + sender, "operator");
    }

    private static String text(JsonNode body, String field) {
        JsonNode value = body.get(field);
        return value == null || value.isNull() ? null : value.asString();
    }

    /**
     * Migrate the order to {@code flow} (the version its flow has, as resolved) from a validated {@code { toVersion,
     * mapping?, dryRun? }} body (the order route) or a batch's fields.
     */
    public static OrderCommand.MigrateOrder migrate(String orderId, FlowVersion flow, JsonNode request) {
        return new OrderCommand.MigrateOrder(orderId, flow, mapping(request), request.path("dryRun").asBoolean(false));
    }

    /** A validated body's {@code mapping}, old node id to new; empty when absent. */
    public static Map<String, String> mapping(JsonNode request) {
        Map<String, String> mapping = new LinkedHashMap<>();
        JsonNode given = request.get("mapping");
        if (given != null && given.isObject()) {
            given.properties().forEach(e -> mapping.put(e.getKey(), e.getValue().asString()));
        }
        return mapping;
    }
}
