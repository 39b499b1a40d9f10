package io.orderflow.schemas.requests;

import io.orderflow.schemas.commands.BatchAction;
import io.orderflow.schemas.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * What a batch request must satisfy beyond its schema: it selects orders one way ({@code filter} or {@code orderIds},
 * each order named once), its action has the fields it needs and no field another action uses, {@code until} does not
 * come before {@code since}, and an event's payload is at most {@value #MAX_PAYLOAD_BYTES} bytes as JSON. A schema
 * could say the first two only with {@code oneOf} and {@code if}/{@code then}, which client generators cannot compile.
 */
public final class BatchRules {

    /** The largest event payload a batch delivers, as UTF-8 JSON. */
    public static final int MAX_PAYLOAD_BYTES = 8192;
    public static final String ONE_SELECTION = "Give either filter or orderIds";
    public static final String EACH_ORDER_ONCE = "Each order is named once";
    public static final String UNTIL_BEFORE_SINCE = "until must not come before since";

    /** The fields each action needs, and the ones it may have besides. */
    private static final Map<String, List<String>> NEEDS = Map.of(
            BatchAction.CANCEL, List.of("reason"),
            BatchAction.DELIVER_EVENT, List.of("event"),
            BatchAction.DECIDE_APPROVAL, List.of("nodeId", "decision"),
            BatchAction.RETRY_INCIDENT, List.of(),
            BatchAction.MIGRATE, List.of("flowId", "toVersion"));
    private static final Map<String, Set<String>> MAY = Map.of(
            BatchAction.CANCEL, Set.of("reason"),
            BatchAction.DELIVER_EVENT, Set.of("event", "payload"),
            BatchAction.DECIDE_APPROVAL, Set.of("nodeId", "decision", "note"),
            BatchAction.RETRY_INCIDENT, Set.of(),
            BatchAction.MIGRATE, Set.of("flowId", "toVersion", "mapping", "dryRun"));
    private static final List<String> ACTION_FIELDS = List.of("reason", "event", "payload", "nodeId", "decision",
            "note", "flowId", "toVersion", "mapping", "dryRun");

    private BatchRules() {
    }

    /**
     * Whether {@code field} says something: a null, an empty object or an empty list does not (generated clients send
     * their empty maps and lists, e.g. {@code "mapping": {}} with a cancel).
     */
    private static boolean given(JsonNode body, String field) {
        JsonNode value = body.get(field);
        return value != null && !value.isNull() && !(value.isContainer() && value.isEmpty());
    }

    /** Issues of a body that already satisfies the schema. */
    static List<RequestIssue> check(JsonNode body) {
        List<RequestIssue> issues = new ArrayList<>();
        boolean filter = body.has("filter");
        boolean ids = body.has("orderIds");
        if (filter == ids) {
            issues.add(new RequestIssue(ids ? "/orderIds" : "", ONE_SELECTION));
        }
        if (ids && body.get("orderIds").valueStream().map(JsonNode::asString).distinct().count()
                < body.get("orderIds").size()) {
            issues.add(new RequestIssue("/orderIds", EACH_ORDER_ONCE));
        }
        JsonNode since = body.path("filter").get("since");
        JsonNode until = body.path("filter").get("until");
        if (since != null && until != null && until.asLong() < since.asLong()) {
            issues.add(new RequestIssue("/filter/until", UNTIL_BEFORE_SINCE));
        }
        String action = body.get("action").asString();
        for (String needed : NEEDS.get(action)) {
            if (!body.has(needed)) {
                issues.add(new RequestIssue("/" + needed, "is required by the " + action + " action"));
            }
        }
        for (String field : ACTION_FIELDS) {
            if (given(body, field) && !MAY.get(action).contains(field)) {
                issues.add(new RequestIssue("/" + field, "is not used by the " + action + " action"));
            }
        }
        issues.addAll(MigrationRules.check(body));
        JsonNode payload = body.get("payload");
        if (payload != null && Json.write(payload).getBytes(StandardCharsets.UTF_8).length > MAX_PAYLOAD_BYTES) {
            issues.add(new RequestIssue("/payload", "must be at most " + MAX_PAYLOAD_BYTES + " bytes as JSON"));
        }
        return List.copyOf(issues);
    }
}
