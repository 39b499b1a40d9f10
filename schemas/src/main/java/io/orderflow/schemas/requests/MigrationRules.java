package io.orderflow.schemas.requests;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * What a migration's mapping must satisfy beyond its schema: no two nodes map to one node of the new version. Whether
 * the ids are nodes of the two versions only the order's agent can say, from the order's own version.
 */
public final class MigrationRules {

    private MigrationRules() {
    }

    /** Issues of a body (a migration's or a batch's) that already satisfies its schema. */
    static List<RequestIssue> check(JsonNode body) {
        JsonNode mapping = body.get("mapping");
        if (mapping == null || !mapping.isObject()) {
            return List.of();
        }
        List<RequestIssue> issues = new ArrayList<>();
        Map<String, String> seen = new HashMap<>();
        for (Map.Entry<String, JsonNode> entry : mapping.properties()) {
            String to = entry.getValue().asString();
            String other = seen.putIfAbsent(to, entry.getKey());
            if (other != null) {
                issues.add(new RequestIssue("/mapping/" + entry.getKey(),
                        "maps to " + to + ", as " + other + " does; each node of the new version takes one node"));
            }
        }
        return issues;
    }
}
