package io.orderflow.schemas.requests;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * What a request to move the service clock must satisfy beyond its schema: exactly one of {@code advanceBy} and
 * {@code pinAt}; {@code advanceBy} an ISO-8601 duration of days, hours, minutes and seconds ({@code PT2H},
 * {@code P2DT1M}; months and years have no fixed length and are refused) above zero and at most {@link #MAX_STEP};
 * {@code pinAt} an ISO-8601 instant with an offset. Where {@code pinAt} may fall depends on the clock, and is checked
 * where the clock is known.
 */
public final class ClockRules {

    /** The furthest one change moves the clock. */
    public static final Duration MAX_STEP = Duration.ofDays(366);
    public static final String EXACTLY_ONE = "Give exactly one of advanceBy and pinAt";
    public static final String NOT_A_DURATION =
            "Not an ISO-8601 duration of days, hours, minutes and seconds, e.g. PT2H or P2DT1M";
    public static final String NOT_FORWARD = "must be more than zero";
    public static final String TOO_FAR = "must be at most P366D";

    private ClockRules() {
    }

    /** The duration {@code text} names, or {@code null} when it names none. */
    public static Duration duration(String text) {
        try {
            return Duration.parse(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** Issues of a body that already satisfies the schema (each field absent or a string of at most 64 characters). */
    static List<RequestIssue> check(JsonNode body) {
        JsonNode advanceBy = body.get("advanceBy");
        JsonNode pinAt = body.get("pinAt");
        if ((advanceBy == null) == (pinAt == null)) {
            return List.of(new RequestIssue("", EXACTLY_ONE));
        }
        if (pinAt != null) {
            return WebhookReplayRules.instant(pinAt.asString()) == null
                    ? List.of(new RequestIssue("/pinAt", WebhookReplayRules.NOT_AN_INSTANT)) : List.of();
        }
        Duration step = duration(advanceBy.asString());
        if (step == null) {
            return List.of(new RequestIssue("/advanceBy", NOT_A_DURATION));
        }
        if (step.isNegative() || step.isZero()) {
            return List.of(new RequestIssue("/advanceBy", NOT_FORWARD));
        }
        if (step.compareTo(MAX_STEP) > 0) {
            return List.of(new RequestIssue("/advanceBy", TOO_FAR));
        }
        return List.of();
    }
}
