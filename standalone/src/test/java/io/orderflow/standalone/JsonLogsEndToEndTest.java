package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.json.Json;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The run command with {@code LOG_FORMAT=json}: the launcher in a process of its own writes every line as JSON, from
 * the broker's start to the line that says the service started, and each line names the service it came from.
 */
class JsonLogsEndToEndTest {

    @Test
    void log_format_json_makes_every_line_of_the_run_command_json_naming_its_service() throws Exception {
        Path data = TestKafka.uniqueStateDir("standalone-json-logs");
        ProcessBuilder command = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), StandaloneLauncher.class.getName())
                .redirectError(ProcessBuilder.Redirect.DISCARD); // stderr: JVM warnings, not log lines
        command.environment().putAll(Map.of("LOG_FORMAT", "json", "PORT", "0", "KAFKA_PORT", "0",
                "INTAKE_SMTP_PORT", "-1", "DATA_DIR", data.toString()));
        command.environment().remove("KAFKA_BOOTSTRAP_SERVERS");
        Process process = command.start();
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                out.lines().forEach(lines::add);
            } catch (java.io.IOException e) {
                // the process ended
            }
        });
        try {
            await().atMost(Duration.ofSeconds(120)).until(() -> !process.isAlive()
                    || lines.stream().anyMatch(line -> line.contains("Order workflow service started")));
            assertThat(process.isAlive()).as("the launcher runs; its output:%n%s", String.join("\n", lines)).isTrue();

            // Logback's own status report ("... |-INFO in ch.qos.logback..."), printed once at its first configuration
            // because this test classpath holds two logback-test.xml files (the run command's jar has one logback.xml)
            List<String> logged = lines.stream().filter(line -> !line.isBlank() && !line.contains(" |-")).toList();
            assertThat(logged).as("every line is one JSON object").isNotEmpty()
                    .allSatisfy(line -> assertThat(line).startsWith("{"));
            List<JsonNode> json = logged.stream().map(Json.MAPPER::readTree).toList();
            assertThat(json).allSatisfy(line -> assertThat(line.has("@timestamp") && line.has("message")).isTrue());
            Set<String> services = json.stream().map(line -> line.path("service").asString())
                    .collect(Collectors.toSet());
            assertThat(services).contains("standalone", "order-processor", "flow-runner", "webhook-dispatcher",
                    "gateway");
            assertThat(json).filteredOn(line -> line.path("message").asString().startsWith("Order processor streams"))
                    .singleElement().satisfies(line -> assertThat(line.path("service").asString())
                            .isEqualTo("order-processor"));
        } finally {
            process.destroy();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            reader.join(Duration.ofSeconds(5));
        }
    }
}
