package io.orderflow.kafka.tracing;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * The tracing settings every service shares, as defaults that anything set explicitly overrides:
 * <ul>
 * <li>{@code TRACING_SAMPLING_PROBABILITY} (default 0.1): the share of new traces whose spans are recorded and
 * exported. Every order gets a trace id and carries it in its headers and logs whatever the sampling; an incoming
 * {@code traceparent} keeps its own sampling decision.</li>
 * <li>the text log's correlation part: {@code [traceId,orderId] } before the logger name on lines written while a
 * request or an order's record is handled (nothing on other lines). JSON lines ({@code LOG_FORMAT=json}) carry the
 * MDC's {@code traceId}, {@code spanId} and {@code orderId} as members without it.</li>
 * </ul>
 * Spans are exported over OTLP only when {@code OTEL_EXPORTER_OTLP_ENDPOINT} is set: Spring Boot maps the OpenTelemetry
 * environment variables ({@code OTEL_EXPORTER_OTLP_ENDPOINT}, {@code OTEL_EXPORTER_OTLP_PROTOCOL},
 * {@code OTEL_EXPORTER_OTLP_HEADERS}, ...) onto its {@code management.opentelemetry.*} settings, and creates no
 * exporter without an endpoint.
 */
public final class TracingSettings implements EnvironmentPostProcessor {

    static final String SAMPLING = "management.tracing.sampling.probability";
    static final String CORRELATION = "logging.pattern.correlation";
    /** The MDC ids in brackets, and nothing at all when both are empty. */
    public static final String CORRELATION_PATTERN = "%replace([%X{" + TraceHeaders.TRACE_ID + ":-},%X{"
            + TraceHeaders.ORDER_ID + ":-}] ){'^\\[,\\] $',''}";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        Map<String, Object> defaults = new LinkedHashMap<>();
        defaults.put(SAMPLING, "${TRACING_SAMPLING_PROBABILITY:0.1}");
        defaults.put(CORRELATION, CORRELATION_PATTERN);
        // last: anything set explicitly wins
        environment.getPropertySources().addLast(new MapPropertySource("orderflow-tracing", defaults));
    }
}
