package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.json.Json;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The run command in a process of its own, as a user starts it, with {@code LOG_FORMAT=json} and
 * {@code OTEL_EXPORTER_OTLP_ENDPOINT} set (one launch for both, a launch costs more than the checks):
 * <ul>
 *   <li>every line it writes is JSON, from the broker's start to the line that says the service started, and each
 *       line names the service it came from;</li>
 *   <li>it exports its spans over OTLP (HTTP, protobuf) to {@code <endpoint>/v1/traces}: a loopback collector receives
 *       the gateway's span of a request made with a sampled {@code traceparent}, under that trace id. Without the
 *       variable no exporter exists (the other end-to-end tests run without it and log no exporter errors).</li>
 * </ul>
 */
@OwnSystem
class RunCommandChildEndToEndTest {

    private static final Pattern STARTED = Pattern.compile("Order workflow service started .*http://localhost:(\\d+)/");

    private static final List<byte[]> exported = new CopyOnWriteArrayList<>();
    private static final List<String> contentTypes = new CopyOnWriteArrayList<>();
    /** What the process wrote to its standard output, line by line (stderr, JVM warnings, is discarded). */
    private static final List<String> lines = new CopyOnWriteArrayList<>();
    private static HttpServer collector;
    private static Process process;
    private static Thread reader;
    private static int port;

    @BeforeAll
    static void launch() throws Exception {
        collector = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        collector.createContext("/v1/traces", exchange -> {
            contentTypes.add(String.valueOf(exchange.getRequestHeaders().getFirst("content-type")));
            exported.add(exchange.getRequestBody().readAllBytes());
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        collector.start();

        Path data = TestKafka.uniqueStateDir("standalone-child");
        // C1 only, as the test JVMs (tests.jvmArgs): the launch lives for seconds, too short to earn back the
        // optimizing compiler's work
        ProcessBuilder command = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                StandaloneLauncher.class.getName())
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        command.environment().putAll(Map.of("LOG_FORMAT", "json", "PORT", "0", "KAFKA_PORT", "0",
                "INTAKE_SMTP_PORT", "-1", "DATA_DIR", data.toString(),
                "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + collector.getAddress().getPort(),
                "TRACING_SAMPLING_PROBABILITY", "0.0"));
        command.environment().remove("KAFKA_BOOTSTRAP_SERVERS");
        process = command.start();
        reader = Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                out.lines().forEach(lines::add);
            } catch (java.io.IOException e) {
                // the process ended
            }
        });
        await().atMost(Duration.ofSeconds(180)).until(() -> !process.isAlive()
                || lines.stream().anyMatch(line -> started(line).find()));
        assertThat(process.isAlive()).as("the launcher runs; its output:%n%s", String.join("\n", lines)).isTrue();
        Matcher started = lines.stream().map(RunCommandChildEndToEndTest::started).filter(Matcher::find).findFirst()
                .orElseThrow();
        port = Integer.parseInt(started.group(1));
    }

    @AfterAll
    static void stop() throws Exception {
        if (process != null) {
            process.destroy();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            reader.join(Duration.ofSeconds(5));
        }
        if (collector != null) {
            collector.stop(0);
        }
    }

    @Test
    void log_format_json_makes_every_line_of_the_run_command_json_naming_its_service() {
        // Logback's own status report ("... |-INFO in ch.qos.logback..."), printed once at its first configuration
        // because this test classpath holds two logback-test.xml files (the run command's jar has one logback.xml)
        List<String> logged = lines.stream().filter(line -> !line.isBlank() && !line.contains(" |-")).toList();
        assertThat(logged).as("every line is one JSON object").isNotEmpty()
                .allSatisfy(line -> assertThat(line).startsWith("{"));
        List<JsonNode> json = logged.stream().map(Json.MAPPER::readTree).toList();
        assertThat(json).allSatisfy(line -> assertThat(line.has("@timestamp") && line.has("message")).isTrue());
        Set<String> services = json.stream().map(line -> line.path("service").asString()).collect(Collectors.toSet());
        assertThat(services).contains("standalone", "order-processor", "flow-runner", "webhook-dispatcher", "gateway");
        assertThat(json).filteredOn(line -> line.path("message").asString().startsWith("Order processor streams"))
                .singleElement().satisfies(line -> assertThat(line.path("service").asString())
                        .isEqualTo("order-processor"));
    }

    @Test
    void with_an_otlp_endpoint_the_spans_of_a_sampled_request_reach_the_collector() throws Exception {
        // sampled by the caller: kept although the service samples none of the traces it starts itself
        String traceId = "5a1e0c7d2b3f4e6a8c9d0e1f2a3b4c5d";
        HttpResponse<String> health = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://localhost:" + port + "/health"))
                .header("traceparent", "00-" + traceId + "-1f2e3d4c5b6a7988-01").GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(200);

        byte[] rawTraceId = HexFormat.of().parseHex(traceId);
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(exported)
                .as("OTLP exports received").anySatisfy(body -> assertThat(contains(body, rawTraceId)).isTrue()));
        assertThat(contentTypes).allSatisfy(type -> assertThat(type).startsWith("application/x-protobuf"));
    }

    /** The started line's port, read from a JSON line whose writer may escape {@code /} as {@code \/}. */
    private static Matcher started(String line) {
        return STARTED.matcher(line.replace("\\/", "/"));
    }

    private static boolean contains(byte[] body, byte[] part) {
        outer:
        for (int i = 0; i + part.length <= body.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (body[i + j] != part[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
