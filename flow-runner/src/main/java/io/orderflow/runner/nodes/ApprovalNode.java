package io.orderflow.runner.nodes;

import java.time.Duration;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * {@code approval}: asks a person to decide. Settings {@code title} (template, default {@code Approve order
 * {{order.id}}}), {@code assignee} (default {@code manager}), {@code timeout} (default 2 days, unscaled).
 * Branches {@code approved}, {@code rejected}, {@code escalated} (nobody decided in time); the output is the decision
 * payload {@code {decision, by, note, outcome}}.
 */
public final class ApprovalNode implements Node {

    public static final String DEFAULT_TITLE = "Approve order {{order.id}}";

    @Override
    public String type() {
        return "approval";
    }

    @Override
    public List<String> branches() {
        return List.of("approved", "rejected", "escalated");
    }

    @Override
    public NodeOutcome execute(NodeContext ctx) {
        // the contract: "title (template; default Approve order {{order.id}})": the setting, else the default; the
        // node's own title names the node in the timeline and is not the approval's
        String title = ctx.render(ctx.setting("title", DEFAULT_TITLE));
        String assignee = ctx.setting("assignee", "manager");
        Duration timeout = io.orderflow.runner.scope.Durations.of(ctx.settings().get("timeout"), Duration.ofDays(2));
        return new NodeOutcome.Wait("approval", title, "approval", assignee, ctx.amount(), timeout,
                "Waiting for " + assignee + " to approve");
    }

    @Override
    public NodeOutcome.Done resume(NodeContext ctx, String branch, JsonNode payload) {
        String by = NodeContext.text(payload == null ? null : payload.get("by"), "");
        return new NodeOutcome.Done(branch, payload, switch (branch) {
            case "approved" -> "Approved" + (by.isEmpty() ? "" : " by " + by);
            case "rejected" -> "Rejected" + (by.isEmpty() ? "" : " by " + by);
            default -> "Escalated: nobody decided before the timeout";
        });
    }
}
