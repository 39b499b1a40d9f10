package io.orderflow.runner.scope;

import io.orderflow.schemas.model.TimeScale;
import java.time.Duration;
import org.springframework.boot.convert.DurationStyle;
import tools.jackson.databind.JsonNode;

/** Reads duration settings: a number of milliseconds, {@code 2d}/{@code 12h}/{@code 30s}, or ISO-8601 {@code P2D}. */
public final class Durations {

    private Durations() {
    }

    public static Duration of(JsonNode value, Duration fallback) {
        if (value == null || value.isMissingNode() || value.isNull()) {
            return fallback;
        }
        if (value.isNumber()) {
            return Duration.ofMillis(value.asLong());
        }
        return DurationStyle.detectAndParse(value.asString());
    }

    /** {@code duration} divided by the time scale, never below one second. */
    public static long scaledMillis(Duration duration, long timeScale) {
        return TimeScale.scaled(duration.toMillis(), timeScale);
    }
}
