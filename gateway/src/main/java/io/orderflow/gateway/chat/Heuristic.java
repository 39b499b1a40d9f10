package io.orderflow.gateway.chat;

import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.query.OrderView;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.node.ObjectNode;

/**
 * The deterministic stand-in for the model (rule 6): with {@code AI_MODE=mock}, without a configured model, or after
 * any model error. Keywords pick one tool; once a tool has run it replies with what the tool did; anything else is
 * answered with the order's status.
 */
final class Heuristic {

    /** An event name such as {@code payment.received}: lower-case words joined by dots. */
    private static final Pattern EVENT = Pattern.compile("\\b[a-z][a-z0-9_]*(?:\\.[a-z0-9_]+)+\\b");

    private Heuristic() {
    }

    static ModelAnswer next(String text, OrderView state, List<ChatTools.ToolCall> called) {
        if (!called.isEmpty()) {
            return ModelAnswer.reply(called.getLast().reply());
        }
        String lower = text.toLowerCase(Locale.ROOT);
        Matcher event = EVENT.matcher(lower);
        if (lower.contains("deliver") || (event.find() && !mentions(lower, "approve", "reject", "cancel"))) {
            ObjectNode args = Json.object();
            String name = event.find(0) ? event.group() : Brief.awaitedEvents(state).stream().findFirst().orElse(null);
            if (name != null) {
                args.put("event", name);
            }
            return ModelAnswer.tool(ChatTools.DELIVER_EVENT, args);
        }
        if (mentions(lower, "reject", "decline", "deny")) {
            return ModelAnswer.tool(ChatTools.REJECT, Json.object());
        }
        if (mentions(lower, "approve", "accept", "sign off")) {
            return ModelAnswer.tool(ChatTools.APPROVE, Json.object());
        }
        if (mentions(lower, "cancel", "abort", "stop the order")) {
            return ModelAnswer.tool(ChatTools.CANCEL, Json.object());
        }
        if (mentions(lower, "brief", "details", "vars", "timeline", "nodes")) {
            return ModelAnswer.tool(ChatTools.GET_STATE, Json.object());
        }
        return ModelAnswer.reply(Brief.statusLine(state));
    }

    private static boolean mentions(String text, String... words) {
        for (String word : words) {
            if (text.contains(word)) {
                return true;
            }
        }
        return false;
    }
}
