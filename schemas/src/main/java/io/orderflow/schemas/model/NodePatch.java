package io.orderflow.schemas.model;

import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * A change to one node's detail; absent ({@code null}) fields are left as they are.
 *
 * @param startedAt epoch milliseconds; starts a run unless the node is already running
 * @param endedAt   epoch milliseconds; the first one at or after the start writes the run record
 * @param branches  the branches the node took
 */
public record NodePatch(NodeStatus status, Long startedAt, Long endedAt, String summary, JsonNode output,
                        String error, List<String> branches) {
}
