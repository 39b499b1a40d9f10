package io.orderflow.processor.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.kafka.logging.LogFormat;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.kafka.tracing.TraceHeaders;
import io.orderflow.processor.OrderProcessorApplication;
import io.orderflow.processor.streams.OrderAgent;
import io.orderflow.schemas.json.Json;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.StandardEnvironment;
import tools.jackson.databind.JsonNode;

/**
 * {@code LOG_FORMAT=json} turns the service's console log into one JSON object a line with its {@code service}, and the
 * {@code orderId}, {@code traceId} and {@code spanId} of the order a line was written for; without it the log stays
 * text.
 */
@ExtendWith(OutputCaptureExtension.class)
class JsonLogsTest {

    @Test
    void log_format_json_writes_json_lines_naming_the_service_and_the_order_and_trace(CapturedOutput output) {
        try (ConfigurableApplicationContext ignored = OrderProcessorApplication.application().run(
                "--LOG_FORMAT=json",
                "--server.port=0",
                "--orderflow.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
                "--orderflow.data-dir=" + TestKafka.uniqueStateDir("processor-json-logs"),
                "--orderflow.streams.application-id=" + TestKafka.uniqueApplicationId("processor-json-logs"),
                "--orderflow.streams.advertised-host=127.0.0.1")) {
            List<JsonNode> started = output.getOut().lines().filter(line -> line.startsWith("{"))
                    .map(Json.MAPPER::readTree)
                    .filter(line -> line.path("message").asString().startsWith("Order processor streams started"))
                    .toList();
            assertThat(started).singleElement().satisfies(line -> {
                assertThat(line.path("service").asString()).isEqualTo("order-processor");
                assertThat(line.path("level").asString()).isEqualTo("INFO");
                assertThat(line.path("logger_name").asString())
                        .isEqualTo("io.orderflow.processor.streams.OrderStreams");
                assertThat(line.has("@timestamp")).isTrue();
            });

            try (TraceHeaders.LogContext traced = TraceHeaders.logContext("ord_json",
                    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")) {
                LoggerFactory.getLogger(OrderAgent.class).warn("A line about an order");
            }
            assertThat(output.getOut().lines().filter(line -> line.startsWith("{")).map(Json.MAPPER::readTree)
                    .filter(line -> line.path("message").asString().equals("A line about an order")))
                    .singleElement().satisfies(line -> {
                        assertThat(line.path("orderId").asString()).isEqualTo("ord_json");
                        assertThat(line.path("traceId").asString()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
                        assertThat(line.path("spanId").asString()).isEqualTo("00f067aa0ba902b7");
                    });
        }
    }

    @Test
    void without_log_format_the_log_stays_text() {
        StandardEnvironment environment = new StandardEnvironment();
        new LogFormat().postProcessEnvironment(environment, null);
        assertThat(environment.getProperty("logging.structured.format.console")).isNull();
        assertThat(environment.getProperty("logging.config")).isNull();
    }
}
