package io.orderflow.schemas.flows;

import tools.jackson.databind.JsonNode;

/**
 * A node of a flow graph.
 *
 * @param type     a type of the node catalogue, e.g. {@code approval}, {@code commerce.charge}, {@code end}
 * @param title    a template, e.g. {@code Approve order {{order.id}}}
 * @param settings the type's settings (an object)
 * @param retry    retry policy for a throwing node; {@code null} means one attempt
 */
public record NodeDefinition(String id, String type, String title, JsonNode settings, RetryPolicy retry) {
}
