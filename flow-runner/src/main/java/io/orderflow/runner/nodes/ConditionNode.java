package io.orderflow.runner.nodes;

import io.orderflow.runner.scope.Expressions;
import io.orderflow.schemas.json.Json;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code condition}: evaluates setting {@code expression} (Spring SpEL, restricted to data access) over
 * {@code order}, {@code vars}, {@code nodes} and {@code input}, e.g. {@code order.total > 1000} or
 * {@code vars.renewals < 12}, and branches {@code true} or {@code false}. Optional setting {@code increment} names a
 * variable to add one to before evaluating (a loop counter, e.g. subscription renewals).
 */
public final class ConditionNode implements Node {

    @Override
    public String type() {
        return "condition";
    }

    @Override
    public List<String> branches() {
        return List.of("true", "false");
    }

    @Override
    public NodeOutcome execute(NodeContext ctx) {
        String expression = ctx.setting("expression", null);
        if (expression == null) {
            throw new NodeFailure("Condition node " + ctx.nodeId() + " has no expression");
        }
        String counter = ctx.setting("increment", null);
        if (counter != null) {
            ctx.vars().put(counter, ctx.vars().path(counter).asLong(0) + 1);
        }
        boolean result;
        try {
            result = Expressions.test(expression, ctx.scope());
        } catch (RuntimeException e) {
            throw new NodeFailure("Condition '" + expression + "' could not be evaluated: " + e.getMessage());
        }
        ObjectNode out = Json.object();
        out.put("expression", expression);
        out.put("result", result);
        return new NodeOutcome.Done(String.valueOf(result), out, expression + " → " + result);
    }
}
