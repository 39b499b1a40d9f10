package io.orderflow.schemas.requests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The body of {@code POST /api/v1/clock}: one of advanceBy and pinAt, each in the forms the API documents. */
class ClockRulesTest {

    private static List<RequestIssue> issues(String body) {
        return ApiRequest.SET_CLOCK.validate(body) instanceof RequestValidation.Invalid invalid ? invalid.issues()
                : List.of();
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"advanceBy\": \"PT2H\"}", "{\"advanceBy\": \"P2DT1M\"}", "{\"advanceBy\": \"PT0.5S\"}",
            "{\"advanceBy\": \"P366D\"}", "{\"advanceBy\": \"pt15m\"}", "{\"pinAt\": \"2026-12-01T06:00:00Z\"}",
            "{\"pinAt\": \"2026-12-01T07:00:00+01:00\"}"})
    void takes_a_forward_duration_or_an_instant(String body) {
        assertThat(issues(body)).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{}                                                         ||Give exactly one of advanceBy and pinAt",
            "{\"advanceBy\": \"PT1H\", \"pinAt\": \"2026-12-01T06:00:00Z\"} ||Give exactly one of advanceBy and pinAt",
            "{\"advanceBy\": \"PT0S\"}                                   |/advanceBy|must be more than zero",
            "{\"advanceBy\": \"-PT1H\"}                                  |/advanceBy|must be more than zero",
            "{\"advanceBy\": \"PT-1H\"}                                  |/advanceBy|must be more than zero",
            "{\"advanceBy\": \"P366DT1S\"}                               |/advanceBy|must be at most P366D",
            "{\"advanceBy\": \"P1Y\"}                                    |/advanceBy|Not an ISO-8601 duration of days, hours, minutes and seconds, e.g. PT2H or P2DT1M",
            "{\"advanceBy\": \"P1M\"}                                    |/advanceBy|Not an ISO-8601 duration of days, hours, minutes and seconds, e.g. PT2H or P2DT1M",
            "{\"advanceBy\": \"2 hours\"}                                |/advanceBy|Not an ISO-8601 duration of days, hours, minutes and seconds, e.g. PT2H or P2DT1M",
            "{\"advanceBy\": \"PT99999999999999999H\"}                   |/advanceBy|Not an ISO-8601 duration of days, hours, minutes and seconds, e.g. PT2H or P2DT1M",
            "{\"pinAt\": \"tomorrow\"}                                   |/pinAt|Not an ISO-8601 instant with an offset, e.g. 2026-11-26T06:00:00Z",
            "{\"pinAt\": \"2026-12-01T06:00:00\"}                        |/pinAt|Not an ISO-8601 instant with an offset, e.g. 2026-11-26T06:00:00Z"})
    void refuses_anything_else_saying_where(String body, String path, String message) {
        assertThat(issues(body)).containsExactly(new RequestIssue(path == null ? "" : path, message));
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"advanceBy\": 2}", "{\"advanceBy\": \"\"}", "{\"when\": \"now\"}"})
    void the_schema_refuses_other_shapes(String body) {
        assertThat(issues(body)).hasSize(1);
    }

    @org.junit.jupiter.api.Test
    void a_long_value_is_refused_before_it_is_parsed() {
        assertThat(issues("{\"advanceBy\": \"PT" + "1".repeat(100) + "H\"}"))
                .containsExactly(new RequestIssue("/advanceBy", "must be at most 64 characters"));
    }
}
