package io.orderflow.processor.order;

import io.orderflow.schemas.commands.RejectionKind;
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

    /**
     * The reply to a command: its status (200, or 201 for a start) and body, or for a refusal its kind, with the body
     * {@code {error}} and the status a gateway that reads no kind answers ({@link Rejection#compatibleStatus}).
     *
     * @param rejection why the command was refused; {@code null} when it was not
     */
    public record Reply(int status, JsonNode body, RejectionKind rejection) {

        /** A command accepted, or answered without a change. */
        public Reply(int status, JsonNode body) {
            this(status, body, null);
        }

        public static Reply rejected(Rejection rejection) {
            return new Reply(rejection.compatibleStatus(), rejection.body(), rejection.kind());
        }

        /**
         * This reply, when it is a success, with the order's {@code version} after the command added to its body (an
         * object without one): what a client that changed the order asks a read for ({@code minVersion}) or names in
         * {@code If-Match}. A refusal keeps the one error shape, {@code {error}}.
         */
        public Reply withVersion(long version) {
            if (rejection != null || status < 200 || status >= 300 || !(body instanceof ObjectNode object)
                    || object.has("version")) {
                return this;
            }
            ObjectNode versioned = object.deepCopy();
            versioned.put("version", version);
            return new Reply(status, versioned, null);
        }
    }

    public static Decision none() {
        return new Decision(List.of(), List.of(), null);
    }

    public static Decision rejected(Rejection rejection) {
        return new Decision(List.of(), List.of(), Reply.rejected(rejection));
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
