package io.orderflow.gateway.chat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.stereotype.Component;

/**
 * The ops chat's turns by who answered: meter {@code orderflow.chat.turns{outcome}}. Each turn of a message's loop
 * counts once as {@code model} (the chat model's answer was used) or {@code fallback} (the keyword heuristic answered:
 * {@code AI_MODE=mock}, no model configured, or the model failed earlier in the message); every failed model call
 * (an HTTP error, a timeout, a malformed answer) also counts as {@code error}, so {@code error} is the part of
 * {@code fallback} the model should have answered. The three counters exist from the start, at zero.
 */
@Component
public class ChatMeters {

    static final String TURNS = "orderflow.chat.turns";
    /** For a chat built without a registry: counts into one of its own, read by nobody. */
    static final ChatMeters NONE = new ChatMeters(new SimpleMeterRegistry());

    private final Counter model;
    private final Counter fallback;
    private final Counter error;

    public ChatMeters(MeterRegistry registry) {
        model = counter(registry, "model");
        fallback = counter(registry, "fallback");
        error = counter(registry, "error");
    }

    private static Counter counter(MeterRegistry registry, String outcome) {
        return Counter.builder(TURNS).description("Ops chat turns by who answered, and failed model calls")
                .tag("outcome", outcome).register(registry);
    }

    /** A turn answered, by the model or by the heuristic. */
    void answered(boolean byModel) {
        (byModel ? model : fallback).increment();
    }

    /** A model call that failed; the heuristic answers in its place. */
    void failed() {
        error.increment();
    }
}
