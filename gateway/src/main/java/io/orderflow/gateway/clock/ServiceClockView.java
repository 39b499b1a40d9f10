package io.orderflow.gateway.clock;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The service clock as {@code /api/v1/clock} shows it.
 *
 * @param now          the service time, ISO-8601
 * @param nowMillis    the service time, epoch milliseconds (as deadlines and timeline entries are written)
 * @param offset       service time minus real time, an ISO-8601 duration ({@code PT0S} at real time)
 * @param offsetMillis the same in milliseconds
 * @param changedAt    real time of the last change, epoch milliseconds; absent before the first
 * @param changedBy    who made the last change, as the audit log names callers; absent before the first
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ServiceClockView(String now, long nowMillis, String offset, long offsetMillis, Long changedAt,
                               String changedBy) {
}
