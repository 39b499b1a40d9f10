package io.orderflow.standalone;

import io.orderflow.kafka.logging.LogFormat;
import java.util.Map;
import org.springframework.boot.logging.LoggingInitializationContext;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * {@code LOG_FORMAT=json} for the whole standalone process: Spring Boot's logging system is set up for JSON before the
 * broker starts, so every line is JSON, the broker's and the topic creation's included, not only those logged after
 * the first service's context set logging up. The services' contexts then find logging set up and keep it. Each line's
 * {@code service} is the one it came from ({@link ServiceJsonMember}).
 */
final class JsonLogging {

    private static final String CUSTOMIZER = "logging.structured.json.customizer";

    private JsonLogging() {
    }

    /** Sets logging up for JSON when {@code LOG_FORMAT} (environment or system property) asks for it. */
    static void initializeIfAsked() {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("standalone-json-logs",
                Map.of(CUSTOMIZER, ServiceJsonMember.class.getName())));
        new LogFormat().postProcessEnvironment(environment, null);
        String config = environment.getProperty("logging.config");
        if (config == null || environment.getProperty("logging.structured.format.console") == null) {
            return;
        }
        LoggingSystem logging = LoggingSystem.get(JsonLogging.class.getClassLoader());
        logging.beforeInitialize();
        logging.initialize(new LoggingInitializationContext(environment), config, null);
    }
}
