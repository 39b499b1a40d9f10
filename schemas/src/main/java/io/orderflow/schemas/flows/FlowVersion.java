package io.orderflow.schemas.flows;

/**
 * One immutable published version of a flow; an order is pinned to one.
 *
 * @param publishedAt epoch milliseconds
 */
public record FlowVersion(String flowId, int version, long publishedAt, FlowDefinition graph) {
}
