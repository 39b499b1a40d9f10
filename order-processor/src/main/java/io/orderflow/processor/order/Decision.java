package io.orderflow.processor.order;

import io.orderflow.schemas.json.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * What the decider decided: facts to apply, effects to carry out, and (for a command) the one reply.
 *
 * @param reply {@code null} for reports and timers, which nobody answers
 */
public record Decision(List<OrderFact> facts, List<Effect> effects, Reply reply) {

    public Decision {
        facts = List.copyOf(facts);
        effects = List.copyOf(effects);
    }

    /** The reply to a command: an HTTP status and body. */
    public record Reply(int status, JsonNode body) {
    }

    public static Decision none() {
        return new Decision(List.of(), List.of(), null);
    }

    public static Decision rejected(Rejection rejection) {
        ObjectNode body = Json.object().put("error", rejection.message());
        return new Decision(List.of(), List.of(), new Reply(rejection.status(), body));
    }

    public static Decision of(List<OrderFact> facts, List<Effect> effects) {
        return new Decision(facts, effects, null);
    }

    public Decision replying(int status, JsonNode body) {
        return new Decision(facts, effects, new Reply(status, body));
    }

    public boolean changesState() {
        return !facts.isEmpty();
    }
}
