package io.orderflow.gateway.chat;

import io.orderflow.gateway.caller.Access;
import io.orderflow.gateway.caller.Role;
import io.orderflow.gateway.commands.CommandBus;
import io.orderflow.gateway.commands.CommandReplies;
import io.orderflow.gateway.commands.OrderCommands;
import io.orderflow.gateway.commands.OrderCommands.Channel;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.ChatMessage;
import io.orderflow.schemas.model.ChatMessage.Proposal;
import io.orderflow.schemas.query.OrderView;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The chat's tools (rule 4). {@code get_state} returns the brief; {@code approve} and {@code reject} prepare a
 * proposal of kind {@code decide} for the waiting approval and decide nothing; {@code cancel} prepares a proposal of
 * kind {@code cancel} and cancels nothing; {@code deliver_event} delivers at once, through the ordinary deliver
 * command with the chat caller's role (a viewer's chat cannot deliver). A proposal is made only for a caller whose role
 * could confirm it (an approver's for a decision, an operator's for a cancel); anyone else is told they may not.
 *
 * <p>{@code deliver_event} is the one tool that changes the order without a person confirming it, so it also runs
 * only when the caller's own message names the event: the model reads text other people wrote (earlier messages, a
 * mail's line names, vars), and an instruction hidden there must not act with the role of whoever asks next. Every
 * tool message records whom the tool ran for.
 */
final class ChatTools {

    static final String GET_STATE = "get_state";
    static final String APPROVE = "approve";
    static final String REJECT = "reject";
    static final String DELIVER_EVENT = "deliver_event";
    static final String CANCEL = "cancel";
    static final Set<String> NAMES = Set.of(GET_STATE, APPROVE, REJECT, DELIVER_EVENT, CANCEL);
    /** The tools that change the order at once; proposals change nothing until a person confirms them. */
    static final Set<String> MUTATING = Set.of(DELIVER_EVENT);

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

    /**
     * Runs {@code tool} on the order as {@code state} shows it. Blocking: runs on the chat's scheduler.
     *
     * @param askedIn the caller's current message when the model chose the tool, which a mutating tool must be
     *                asked for in; {@code null} when the heuristic chose it from that message itself
     */
    ToolCall run(String tool, ObjectNode args, OrderView state, String orderId, Caller caller, String askedIn) {
        if (askedIn != null && MUTATING.contains(tool)) {
            ToolCall unasked = unasked(tool, args, askedIn, caller);
            if (unasked != null) {
                return unasked;
            }
        }
        return switch (tool) {
            case GET_STATE -> new ToolCall(tool, args, "Read the order's state.", Brief.of(state), null,
                    Brief.statusLine(state));
            case APPROVE -> decide(args, state, "approved", caller);
            case REJECT -> decide(args, state, "rejected", caller);
            case CANCEL -> cancel(args, state, caller);
            case DELIVER_EVENT -> deliver(args, state, orderId, caller);
            default -> throw new IllegalArgumentException("unknown tool " + tool);
        };
    }

    private ToolCall decide(ObjectNode args, OrderView state, String decision, Caller caller) {
        String tool = "approved".equals(decision) ? APPROVE : REJECT;
        String verb = "approved".equals(decision) ? "approve" : "reject";
        List<OrderView.Wait> waits = Brief.approvalWaits(state);
        String asked = args.path("nodeId").isString() ? args.get("nodeId").asString() : null;
        OrderView.Wait wait = waits.stream().filter(w -> asked == null || asked.equals(w.nodeId()))
                .findFirst().orElse(null);
        if (wait == null) {
            String text = "No approval is waiting" + (asked == null ? "" : " at node " + asked) + "; nothing to "
                    + verb + ".";
            return new ToolCall(tool, args, text, Json.object().put("error", text), null, text);
        }
        if (!Access.mayCall(caller, Role.APPROVER)) {
            return refused(tool, args, verb, "decided", Role.APPROVER, caller);
        }
        String nodeId = wait.nodeId();
        String title = wait.title() != null ? wait.title() : nodeId;
        Proposal proposal = new Proposal("prop_" + ids.get(), Proposal.DECIDE, nodeId, decision, null, Proposal.OPEN);
        String text = "Proposed: " + verb + " \u201c" + title + "\u201d.";
        ObjectNode result = Json.object().put("proposalId", proposal.id()).put("kind", Proposal.DECIDE)
                .put("nodeId", nodeId).put("decision", decision)
                .put("note", "Nothing is decided until a person confirms the proposal on the order page.");
        return new ToolCall(tool, args, text, result, proposal,
                "I prepared a proposal to " + verb + " \u201c" + title + "\u201d. Confirm it on the order page; "
                        + "nothing is decided until you do.");
    }

    private ToolCall cancel(ObjectNode args, OrderView state, Caller caller) {
        if (state.ended()) {
            String text = "The order has already ended (" + Brief.status(state) + "); nothing to cancel.";
            return new ToolCall(CANCEL, args, text, Json.object().put("error", text), null, text);
        }
        if (!Access.mayCall(caller, Role.OPERATOR)) {
            return refused(CANCEL, args, "cancel", "cancelled", Role.OPERATOR, caller);
        }
        String reason = OrderCommands.reason(Channel.CHAT,
                args.path("reason").isString() ? args.get("reason").asString() : null);
        Proposal proposal = new Proposal("prop_" + ids.get(), Proposal.CANCEL, null, null, reason, Proposal.OPEN);
        ObjectNode result = Json.object().put("proposalId", proposal.id()).put("kind", Proposal.CANCEL)
                .put("reason", reason)
                .put("note", "Nothing is cancelled until a person confirms the proposal on the order page.");
        return new ToolCall(CANCEL, args, "Proposed: cancel the order (" + reason + ").", result, proposal,
                "I prepared a proposal to cancel the order. Confirm it on the order page; nothing is cancelled "
                        + "until you do.");
    }

    /**
     * No proposal for a caller who could not confirm it (a proposal is confirmed with the confirming person's role):
     * the chat says they may not {@code verb} the order and which role it needs.
     */
    private static ToolCall refused(String tool, ObjectNode args, String verb, String done, Role needed,
                                    Caller caller) {
        String needs = needed.needed();
        String text = "No proposal: " + who(caller) + " may not " + verb + " this order. " + needs;
        return new ToolCall(tool, args, text, Json.object().put("error", "You may not " + verb + " this order. "
                + needs + " Nothing was proposed and nothing was " + done + "."), null,
                "You may not " + verb + " this order: " + needs + " You are signed in as a "
                        + Role.of(caller.role()).wire() + ", so I made no proposal; ask "
                        + ("cancel".equals(verb) ? "an operator" : "an approver or an operator") + ".");
    }

    private ToolCall deliver(ObjectNode args, OrderView state, String orderId, Caller caller) {
        String event = args.path("event").isString() ? args.get("event").asString().trim() : "";
        if (event.isEmpty()) {
            List<String> awaited = Brief.awaitedEvents(state);
            String text = awaited.isEmpty() ? "No event name given, and no node is waiting for an event."
                    : "No event name given; the order is waiting for " + String.join(", ", awaited) + ".";
            return new ToolCall(DELIVER_EVENT, args, text, Json.object().put("error", text), null, text);
        }
        if (!Access.mayDeliverFromChat(caller)) {
            String needs = Role.OPERATOR.needed();
            String text = "Not delivered: " + needs;
            return new ToolCall(DELIVER_EVENT, args, text, Json.object().put("delivered", false).put("error", needs),
                    null, "I can't deliver " + event + " for you: " + needs + " You are signed in as a "
                    + Role.of(caller.role()).wire() + ".");
        }
        CommandReply reply = commands.send(OrderCommands.chatDeliver(orderId, event, args.get("payload")), caller)
                .block();
        JsonNode body = reply == null ? Json.object() : CommandReplies.body(reply);
        if (reply == null || !CommandReplies.accepted(reply)) {
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

    /** A refusal when {@code message} does not ask for the mutating {@code tool}; {@code null} when it does. */
    private static ToolCall unasked(String tool, ObjectNode args, String message, Caller caller) {
        String event = args.path("event").isString() ? args.get("event").asString().trim() : "";
        if (!event.isEmpty() && names(message, event)) {
            return null;
        }
        String what = event.isEmpty() ? "an event" : event;
        String text = "Not delivered: the message of " + who(caller) + " does not ask for " + what
                + "; the chat delivers an event only when the person's own message names it.";
        return new ToolCall(tool, args, text, Json.object().put("delivered", false).put("error", text), null,
                "I did not deliver " + what + ": your message does not name it. To deliver it, ask for it by name, "
                        + "such as \u201cdeliver " + (event.isEmpty() ? "payment.received" : event) + "\u201d.");
    }

    /**
     * Whether {@code message} names {@code event} as a whole: {@code payment.received} in "deliver
     * payment.received." but not in "payment.received_late". Case does not matter.
     */
    static boolean names(String message, String event) {
        return Pattern.compile("(?<![\\w.])" + Pattern.quote(event) + "(?![\\w]|\\.\\w)",
                Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE).matcher(message).find();
    }

    /** The caller as the chat names them: their identity, or the kind of caller (the shared password has none). */
    static String who(Caller caller) {
        return caller.identity() != null ? caller.identity() : caller.kind();
    }

    /** The chat message a tool call leaves in the transcript, with whom it ran for. */
    static ChatMessage message(String id, ToolCall call, Caller caller) {
        return new ChatMessage(id, 0, ChatMessage.TOOL, call.text(), caller.identity(), call.tool(), call.args(),
                call.proposal());
    }
}
