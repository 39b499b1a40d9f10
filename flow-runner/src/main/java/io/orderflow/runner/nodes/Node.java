package io.orderflow.runner.nodes;

import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * One node type of the catalogue. Implementations are stateless; everything they need comes in the
 * {@link NodeContext}, and side effects go through its connectors.
 *
 * <p>Throwing a {@link RuntimeException} from {@link #execute} counts as a failed attempt and is retried per the
 * node's retry policy; a {@link NodeFailure} fails the run at once.
 */
public interface Node {

    /** The type name flows use, e.g. {@code commerce.charge}. */
    String type();

    /** The branches the node can take (edge {@code branch} values); empty when it only has a default next. */
    default List<String> branches() {
        return List.of();
    }

    NodeOutcome execute(NodeContext ctx);

    /** Continues a waiting node on {@code branch}; the payload becomes the node's output. */
    default NodeOutcome.Done resume(NodeContext ctx, String branch, JsonNode payload) {
        return new NodeOutcome.Done(branch, payload, "Resumed on " + branch);
    }

    /** Undoes what the node did, during a rollback; {@code output} is what it produced. Throws when it cannot. */
    default void compensate(NodeContext ctx, JsonNode output) {
    }

    /** The outbound event a finish on {@code branch} with {@code output} sends ({@code order.paid}, ...), or {@code null}. */
    default String eventOn(String branch, JsonNode output) {
        return null;
    }

    /** False for nodes that are not timed (End, {@code control.wait}): their reports carry no start and end. */
    default boolean timed() {
        return true;
    }
}
