package io.orderflow.schemas.flows;

/**
 * An edge of a flow graph, taken when node {@code from} finishes on {@code branch}
 * ({@code null} branch: the node's default {@code next}).
 */
public record EdgeDefinition(String id, String from, String to, String branch) {
}
