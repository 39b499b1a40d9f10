package io.orderflow.kafka.logging;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * {@code LOG_FORMAT=json} switches a service's console log to Spring Boot's structured logging in the Logstash JSON
 * format: one JSON object a line with {@code @timestamp}, {@code level}, {@code logger_name}, {@code thread_name},
 * {@code message}, the MDC's entries, and {@code service} (the application's name, unless a
 * {@code logging.structured.json.customizer} names the service itself, as the standalone system's does). Any other
 * value, or none, keeps Spring Boot's readable text. The logging configuration is {@link #CONFIG}, which keeps the
 * services' log levels; settings given explicitly ({@code logging.config}, {@code logging.structured.*}) win.
 */
public final class LogFormat implements EnvironmentPostProcessor {

    static final String CONFIG = "classpath:io/orderflow/kafka/logging/logback-json.xml";
    private static final String CUSTOMIZER = "logging.structured.json.customizer";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        String format = environment.getProperty("LOG_FORMAT", "text");
        if (!"json".equals(format.strip().toLowerCase(Locale.ROOT))) {
            return;
        }
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("logging.config", CONFIG);
        json.put("logging.structured.format.console", "logstash");
        if (!environment.containsProperty(CUSTOMIZER)) {
            json.put("logging.structured.json.add.service", "${spring.application.name:}");
        }
        // last: anything set explicitly wins
        environment.getPropertySources().addLast(new MapPropertySource("orderflow-log-format", json));
    }
}
