package io.orderflow.gateway.chat;

import io.orderflow.gateway.caller.Role;
import io.orderflow.gateway.commands.CommandBus;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.ChatMessage;
import io.orderflow.schemas.model.ChatMessage.Proposal;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The chat's tools (rule 4). {@code get_state} returns the brief; {@code approve} and {@code reject} prepare a
 * proposal of kind {@code decide} for the waiting approval and decide nothing; {@code cancel} prepares a proposal of
 * kind {@code cancel} and cancels nothing; {@code deliver_event} delivers at once, through the ordinary deliver
 * command with the chat caller's role (a viewer's chat cannot deliver).
 */
final class ChatTools {

    static final String GET_STATE = "get_state";
    static final String APPROVE = "approve";
    static final String REJECT = "reject";
    static final String DELIVER_EVENT = "deliver_event";
    static final String CANCEL = "cancel";
    static final Set<String> NAMES = Set.of(GET_STATE, APPROVE, REJECT, DELIVER_EVENT, CANCEL);
    static final String CHAT_CANCEL_REASON = "Cancelled from the ops chat";

    /**
     * A tool that ran: the chat message it leaves ({@code text}, with its proposal), what the model is told
     * ({@code result}) and what the heuristic replies after it.
     */
    record ToolCall(String tool, ObjectNode args, String text, JsonNode result, Proposal proposal, String reply) {

        ObjectNode forModel() {
            ObjectNode call = Json.object().put("tool", tool);
            call.set("args", args);
            call.set("result", result);
            return call;
        }
    }

    private final CommandBus commands;
    private final Supplier<String> ids;

    ChatTools(CommandBus commands, Supplier<String> ids) {
        this.commands = commands;
        this.ids = ids;
    }

    /** Runs {@code tool} on the order as {@code state} shows it. Blocking: runs on the chat's scheduler. */
    ToolCall run(String tool, ObjectNode args, JsonNode state, String orderId, Caller caller) {
        return switch (tool) {
            case GET_STATE -> new ToolCall(tool, args, "Read the order's state.", Brief.of(state), null,
                    Brief.statusLine(state));
            case APPROVE -> decide(args, state, "approved");
            case REJECT -> decide(args, state, "rejected");
            case CANCEL -> cancel(args, state);
            case DELIVER_EVENT -> deliver(args, state, orderId, caller);
            default -> throw new IllegalArgumentException("unknown tool " + tool);
        };
    }

    private ToolCall decide(ObjectNode args, JsonNode state, String decision) {
        String tool = "approved".equals(decision) ? APPROVE : REJECT;
        String verb = "approved".equals(decision) ? "approve" : "reject";
        List<JsonNode> waits = Brief.approvalWaits(state);
        String asked = args.path("nodeId").isString() ? args.get("nodeId").asString() : null;
        JsonNode wait = waits.stream().filter(w -> asked == null || asked.equals(w.path("nodeId").asString("")))
                .findFirst().orElse(null);
        if (wait == null) {
            String text = "No approval is waiting" + (asked == null ? "" : " at node " + asked) + "; nothing to "
                    + verb + ".";
            return new ToolCall(tool, args, text, Json.object().put("error", text), null, text);
        }
        String nodeId = wait.get("nodeId").asString();
        String title = wait.path("title").asString(nodeId);
        Proposal proposal = new Proposal("prop_" + ids.get(), Proposal.DECIDE, nodeId, decision, null, Proposal.OPEN);
        String text = "Proposed: " + verb + " \u201c" + title + "\u201d.";
        ObjectNode result = Json.object().put("proposalId", proposal.id()).put("kind", Proposal.DECIDE)
                .put("nodeId", nodeId).put("decision", decision)
                .put("note", "Nothing is decided until a person confirms the proposal on the order page.");
        return new ToolCall(tool, args, text, result, proposal,
                "I prepared a proposal to " + verb + " \u201c" + title + "\u201d. Confirm it on the order page; "
                        + "nothing is decided until you do.");
    }

    private ToolCall cancel(ObjectNode args, JsonNode state) {
        if (Brief.ended(state)) {
            String text = "The order has already ended (" + Brief.status(state) + "); nothing to cancel.";
            return new ToolCall(CANCEL, args, text, Json.object().put("error", text), null, text);
        }
        String reason = args.path("reason").isString() && !args.get("reason").asString().isBlank()
                ? args.get("reason").asString() : CHAT_CANCEL_REASON;
        Proposal proposal = new Proposal("prop_" + ids.get(), Proposal.CANCEL, null, null, reason, Proposal.OPEN);
        ObjectNode result = Json.object().put("proposalId", proposal.id()).put("kind", Proposal.CANCEL)
                .put("reason", reason)
                .put("note", "Nothing is cancelled until a person confirms the proposal on the order page.");
        return new ToolCall(CANCEL, args, "Proposed: cancel the order (" + reason + ").", result, proposal,
                "I prepared a proposal to cancel the order. Confirm it on the order page; nothing is cancelled "
                        + "until you do.");
    }

    private ToolCall deliver(ObjectNode args, JsonNode state, String orderId, Caller caller) {
        String event = args.path("event").isString() ? args.get("event").asString().trim() : "";
        if (event.isEmpty()) {
            List<String> awaited = Brief.awaitedEvents(state);
            String text = awaited.isEmpty() ? "No event name given, and no node is waiting for an event."
                    : "No event name given; the order is waiting for " + String.join(", ", awaited) + ".";
            return new ToolCall(DELIVER_EVENT, args, text, Json.object().put("error", text), null, text);
        }
        if (!Role.of(caller.role()).covers(Role.OPERATOR)) {
            String needs = Role.OPERATOR.needed();
            String text = "Not delivered: " + needs;
            return new ToolCall(DELIVER_EVENT, args, text, Json.object().put("delivered", false).put("error", needs),
                    null, "I can't deliver " + event + " for you: " + needs + " You are signed in as a "
                    + Role.of(caller.role()).wire() + ".");
        }
        ObjectNode payload = args.get("payload") instanceof ObjectNode given ? given.deepCopy() : Json.object();
        if (!payload.has("source")) {
            payload.put("source", "chat");
        }
        CommandReply reply = commands.send(new OrderCommand.DeliverEvent(orderId, event, payload), caller).block();
        JsonNode body = reply == null || reply.body() == null ? Json.object() : reply.body();
        if (reply == null || reply.status() >= 300) {
            String error = body.path("error").asString("the order processor refused it");
            String text = "Not delivered: " + error;
            return new ToolCall(DELIVER_EVENT, args, text, Json.object().put("delivered", false).put("error", error),
                    null, "I could not deliver " + event + ": " + error);
        }
        boolean delivered = body.path("delivered").asBoolean(false);
        String text = delivered ? "Delivered " + event + " to node " + body.path("nodeId").asString("?") + "."
                : "Not delivered: no node is waiting for " + event + ".";
        return new ToolCall(DELIVER_EVENT, args, text, body, null, delivered
                ? "Delivered " + event + "; the order goes on from node " + body.path("nodeId").asString("?") + "."
                : "No node is waiting for " + event + ", so nothing was delivered.");
    }

    /** The chat message a tool call leaves in the transcript. */
    static ChatMessage message(String id, ToolCall call) {
        return new ChatMessage(id, 0, ChatMessage.TOOL, call.text(), null, call.tool(), call.args(), call.proposal());
    }
}
