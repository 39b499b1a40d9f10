package io.orderflow.standalone;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import java.util.Map;

/**
 * {@code %service} in the standalone's log pattern: the name of the service a line came from. The four services share
 * one JVM and one logging system, so Spring Boot's application-name tag would name whichever context started first
 * on every line. The service is the one the launcher was starting on this thread ({@link #MDC_KEY}, set while a
 * context starts), else the one whose package the logger is in, else the one whose threads these are (Kafka Streams
 * and listener threads carry the service's name), else {@code standalone} (the launcher and the broker).
 */
public final class ServiceTagConverter extends ClassicConverter {

    /** The MDC key the launcher sets while it starts a service's context. */
    public static final String MDC_KEY = "orderflow.service";

    static final String STANDALONE = "standalone";

    private static final Map<String, String> BY_LOGGER = Map.of(
            "io.orderflow.gateway", "gateway",
            "io.orderflow.processor", "order-processor",
            "io.orderflow.runner", "flow-runner",
            "io.orderflow.dispatcher", "webhook-dispatcher");

    private static final Map<String, String> BY_THREAD = Map.of(
            "orderflow-order-processor", "order-processor",
            "orderflow-flow-runner", "flow-runner",
            "webhook-", "webhook-dispatcher");

    @Override
    public String convert(ILoggingEvent event) {
        return serviceOf(event);
    }

    /** The service a line came from; the {@code service} member of JSON lines too ({@link ServiceJsonMember}). */
    static String serviceOf(ILoggingEvent event) {
        String starting = event.getMDCPropertyMap().get(MDC_KEY);
        if (starting != null) {
            return starting;
        }
        String byLogger = prefixed(event.getLoggerName(), BY_LOGGER);
        if (byLogger != null) {
            return byLogger;
        }
        String byThread = prefixed(event.getThreadName(), BY_THREAD);
        return byThread != null ? byThread : STANDALONE;
    }

    private static String prefixed(String name, Map<String, String> services) {
        if (name == null) {
            return null;
        }
        for (Map.Entry<String, String> service : services.entrySet()) {
            if (name.startsWith(service.getKey())) {
                return service.getValue();
            }
        }
        return null;
    }
}
