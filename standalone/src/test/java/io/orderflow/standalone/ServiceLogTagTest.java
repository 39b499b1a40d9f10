package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import io.orderflow.kafka.tracing.TraceHeaders;
import io.orderflow.kafka.tracing.TracingSettings;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each line of the standalone's log names the service that wrote it, not the first service to start, and a line written
 * while an order is handled names its trace and order.
 */
class ServiceLogTagTest {

    @Test
    void eachServicesLinesCarryItsOwnName() throws Exception {
        LoggerContext logging = new LoggerContext();
        PatternLayoutEncoder encoder = encoder(logging);

        assertThat(line(encoder, logging, "io.orderflow.runner.run.RunTopology", "main", Map.of()))
                .contains("[flow-runner]").doesNotContain("order-processor");
        assertThat(line(encoder, logging, "io.orderflow.gateway.GatewayApplication", "main", Map.of()))
                .contains("[gateway]");
        assertThat(line(encoder, logging, "io.orderflow.dispatcher.dispatch.DeliveryAttempts", "worker", Map.of()))
                .contains("[webhook-dispatcher]");
        assertThat(line(encoder, logging, "org.apache.kafka.streams.KafkaStreams",
                "orderflow-order-processor-1b2c-StreamThread-1", Map.of())).contains("[order-processor]");
        assertThat(line(encoder, logging, "org.springframework.boot.web.server.Netty", "main",
                Map.of(ServiceTagConverter.MDC_KEY, "gateway"))).as("Spring's lines while a service starts")
                .contains("[gateway]");
        assertThat(line(encoder, logging, "io.orderflow.kafka.embedded.EmbeddedKafkaBroker", "main", Map.of()))
                .contains("[standalone]");
    }

    /**
     * With Spring Boot's {@code LOG_CORRELATION_PATTERN} (from {@code logging.pattern.correlation}, which
     * {@link TracingSettings} sets), a line written while an order is handled starts its message part with the trace
     * id and the order id, so one grep of the trace id finds the order's lines; other lines are unchanged.
     */
    @Test
    void linesWrittenWhileAnOrderIsHandledCarryItsTraceIdAndOrderId() throws Exception {
        LoggerContext logging = new LoggerContext();
        logging.putProperty("LOG_CORRELATION_PATTERN", TracingSettings.CORRELATION_PATTERN);
        PatternLayoutEncoder encoder = encoder(logging);

        assertThat(line(encoder, logging, "io.orderflow.runner.run.RunTopology", "main", Map.of(
                TraceHeaders.TRACE_ID, "4bf92f3577b34da6a3ce929d0e0e4736", TraceHeaders.SPAN_ID, "00f067aa0ba902b7",
                TraceHeaders.ORDER_ID, "ord_1")))
                .contains("[flow-runner]").contains("[4bf92f3577b34da6a3ce929d0e0e4736,ord_1] ");
        assertThat(line(encoder, logging, "io.orderflow.gateway.GatewayApplication", "main", Map.of()))
                .contains("[gateway]").doesNotContain("[,");
    }

    private static PatternLayoutEncoder encoder(LoggerContext logging) throws Exception {
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(logging);
        URL config = StandaloneSystem.class.getClassLoader().getResource("logback.xml");
        configurator.doConfigure(config);
        @SuppressWarnings("unchecked")
        ConsoleAppender<ch.qos.logback.classic.spi.ILoggingEvent> console =
                (ConsoleAppender<ch.qos.logback.classic.spi.ILoggingEvent>) logging.getLogger("ROOT")
                        .getAppender("CONSOLE");
        return (PatternLayoutEncoder) console.getEncoder();
    }

    private static String line(PatternLayoutEncoder encoder, LoggerContext logging, String logger, String thread,
                               Map<String, String> mdc) {
        LoggingEvent event = new LoggingEvent(ServiceLogTagTest.class.getName(), logging.getLogger(logger), Level.INFO,
                "hello", null, null);
        event.setThreadName(thread);
        event.setMDCPropertyMap(mdc);
        return new String(encoder.encode(event), StandardCharsets.UTF_8);
    }
}
