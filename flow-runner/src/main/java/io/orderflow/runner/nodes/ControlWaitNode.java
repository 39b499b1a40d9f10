package io.orderflow.runner.nodes;

import io.orderflow.runner.scope.Durations;
import io.orderflow.schemas.json.Json;
import java.time.Duration;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code control.wait}: sleeps for setting {@code duration} (default 1 day) divided by {@code TIME_SCALE}, never below
 * one second, on the runner's timer store. Not timed.
 */
public final class ControlWaitNode implements Node {

    @Override
    public String type() {
        return "control.wait";
    }

    @Override
    public boolean timed() {
        return false;
    }

    @Override
    public NodeOutcome execute(NodeContext ctx) {
        Duration duration = Durations.of(ctx.settings().get("duration"), Duration.ofDays(1));
        long millis = Durations.scaledMillis(duration, ctx.timeScale());
        ObjectNode out = Json.object();
        out.put("duration", duration.toString());
        out.put("sleptMs", millis);
        return new NodeOutcome.Sleep(millis, new NodeOutcome.Done(null, out, "Waited " + duration.toString()
                .substring(2).toLowerCase() + " (" + millis + " ms scaled)"));
    }
}
