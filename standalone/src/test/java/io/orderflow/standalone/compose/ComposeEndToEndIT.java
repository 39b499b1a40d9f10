package io.orderflow.standalone.compose;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.orderflow.kafka.testing.TestKafka;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The compose stack end to end, by {@code docker/compose-smoke.sh} (the one implementation of the check, which can also
 * be run by hand): up from the module jars, an order started through the gateway to {@code completed}, its signed
 * {@code order.completed} webhook received, Prometheus's four targets up, then down with the volumes. The gateway and
 * Prometheus publish on free host ports and the project has a name of its own, so a stack already running on the
 * machine is neither in the way nor taken down. Skipped, with the script's reason, where no engine, Compose v2, image
 * or jar is there, and where Docker is not to be used ({@link TestKafka#mode()} false); each step's time and the total
 * are in this class's output.
 */
class ComposeEndToEndIT {

    /** The script's exit status for "cannot run here"; it starts nothing before it. */
    private static final int SKIP = 3;
    /** Bounds the whole run: up is bounded by the script's UP_TIMEOUT (600 s), the steps after it by about 5 min. */
    private static final Duration LIMIT = Duration.ofMinutes(20);

    @Test
    void an_order_through_the_compose_stack_completes_and_its_signed_webhook_is_received() throws Exception {
        assumeTrue(!"false".equals(TestKafka.mode()),
                "orderflow.test.docker (or ORDERFLOW_TEST_DOCKER) is false: Docker is not to be used");
        Path root = Path.of("").toAbsolutePath().getParent();
        Path script = root.resolve("docker/compose-smoke.sh");
        assumeTrue(Files.isRegularFile(script), "no " + script);

        ProcessBuilder builder = new ProcessBuilder("bash", script.toString()).directory(root.toFile())
                .redirectErrorStream(true);
        builder.environment().put("COMPOSE_PROJECT_NAME", "orderflow-e2e");
        builder.environment().put("GATEWAY_HOST_PORT", String.valueOf(freePort()));
        builder.environment().put("SMTP_HOST_PORT", String.valueOf(freePort()));
        builder.environment().put("PROMETHEUS_HOST_PORT", String.valueOf(freePort()));
        long start = System.nanoTime();
        Process process = builder.start();
        List<String> output = new CopyOnWriteArrayList<>();
        Thread reader = Thread.ofVirtual().start(() -> {
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                lines.lines().forEach(line -> {
                    System.out.println("compose-smoke: " + line);
                    output.add(line);
                });
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        if (!process.waitFor(LIMIT.toMinutes(), TimeUnit.MINUTES)) {
            process.destroy(); // SIGTERM: the script takes the stack down on its way out
            process.waitFor(5, TimeUnit.MINUTES);
        }
        reader.join(Duration.ofSeconds(10));
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        System.out.println("compose end to end: " + seconds + " s, exit status "
                + (process.isAlive() ? "none (still running)" : process.exitValue()));

        int status = process.isAlive() ? -1 : process.exitValue();
        assumeTrue(status != SKIP, () -> output.stream().filter(line -> line.startsWith("SKIP: ")).findFirst()
                .map(line -> line.substring("SKIP: ".length())).orElse("docker/compose-smoke.sh cannot run here"));
        assertThat(status).as("docker/compose-smoke.sh's exit status after %d s (limit %s); its output:%n%s",
                seconds, LIMIT, String.join("\n", output)).isZero();
        assertThat(output).as("the script's steps").anyMatch(line -> line.contains("webhook order.completed received"));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
