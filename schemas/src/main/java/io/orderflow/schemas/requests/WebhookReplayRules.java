package io.orderflow.schemas.requests;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * What a replay request must satisfy beyond its schema: {@code since} and {@code until} are ISO-8601 instants with an
 * offset ({@code 2026-11-26T06:00:00Z}, {@code 2026-11-26T07:00:00+01:00}) and {@code since} comes before
 * {@code until}. How long the window may be is the dispatcher's setting, checked there.
 */
public final class WebhookReplayRules {

    public static final String NOT_AN_INSTANT = "Not an ISO-8601 instant with an offset, e.g. 2026-11-26T06:00:00Z";
    public static final String SINCE_BEFORE_UNTIL = "since must come before until";

    private WebhookReplayRules() {
    }

    /** The instant {@code text} names, or {@code null} when it names none. */
    public static Instant instant(String text) {
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** Issues of a body that already satisfies the schema ({@code since} a string, {@code until} absent or one). */
    static List<RequestIssue> check(JsonNode body) {
        List<RequestIssue> issues = new ArrayList<>();
        Instant since = instant(body.get("since").asString());
        if (since == null) {
            issues.add(new RequestIssue("/since", NOT_AN_INSTANT));
        }
        JsonNode untilNode = body.get("until");
        Instant until = untilNode == null ? null : instant(untilNode.asString());
        if (untilNode != null && until == null) {
            issues.add(new RequestIssue("/until", NOT_AN_INSTANT));
        }
        if (since != null && until != null && !since.isBefore(until)) {
            issues.add(new RequestIssue("/until", SINCE_BEFORE_UNTIL));
        }
        return List.copyOf(issues);
    }
}
