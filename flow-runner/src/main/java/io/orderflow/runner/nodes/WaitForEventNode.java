package io.orderflow.runner.nodes;

import io.orderflow.runner.scope.Durations;
import io.orderflow.schemas.model.EventNames;
import java.time.Duration;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * {@code wait_for_event}: waits for a named business event. Settings {@code event} (default
 * {@code payment.received}), {@code timeout} (default 30 days, unscaled). Branches {@code received}, {@code timeout}.
 * A received payload is the node output and is also stored in {@code vars.<event with non-alphanumerics as _>}.
 */
public final class WaitForEventNode implements Node {

    @Override
    public String type() {
        return "wait_for_event";
    }

    @Override
    public List<String> branches() {
        return List.of("received", "timeout");
    }

    @Override
    public NodeOutcome execute(NodeContext ctx) {
        String event = ctx.setting("event", "payment.received");
        Duration timeout = Durations.of(ctx.settings().get("timeout"), Duration.ofDays(30));
        String title = ctx.render(ctx.definition().title() != null ? ctx.definition().title() : "Wait for " + event);
        return new NodeOutcome.Wait("event", title, event, null, ctx.amount(), timeout, "Waiting for " + event);
    }

    @Override
    public NodeOutcome.Done resume(NodeContext ctx, String branch, JsonNode payload) {
        String event = ctx.setting("event", "payment.received");
        if ("received".equals(branch) && payload != null) {
            ctx.vars().set(EventNames.varsKey(event), payload);
            return new NodeOutcome.Done(branch, payload, "Received " + event);
        }
        return new NodeOutcome.Done(branch, payload, "Timed out waiting for " + event);
    }
}
