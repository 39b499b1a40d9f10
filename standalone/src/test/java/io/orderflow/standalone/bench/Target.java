package io.orderflow.standalone.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** The system under test: one the benchmark started as a child process, or a running one. */
final class Target implements AutoCloseable {

    private final String url;
    private final String kafka;
    private final Process process;
    private final long pid;
    private final Path dataDir;
    private final boolean ownDataDir;
    private final String description;
    /** Set when the run failed: the data directory, with the system's log, outlives the benchmark. */
    private volatile boolean keepData;

    private Target(String url, String kafka, Process process, long pid, Path dataDir, boolean ownDataDir,
                   String description) {
        this.url = url;
        this.kafka = kafka;
        this.process = process;
        this.pid = pid;
        this.dataDir = dataDir;
        this.ownDataDir = ownDataDir;
        this.description = description;
    }

    /** Lines of the system's log shown when it exits before it is healthy. */
    private static final int LOG_LINES_SHOWN = 60;

    static Target open(BenchOptions options) throws Exception {
        if (options.url() != null) {
            return new Target(options.url(), options.kafka(), null, options.pid(), null, false,
                    "running system at " + options.url());
        }
        Path jar = Path.of(options.jar()).toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalArgumentException("No jar at " + jar + " (package it, or pass --jar=...)");
        }
        boolean own = options.dataDir() == null;
        Path dataDir = own ? Files.createTempDirectory("perf-data-bench-")
                : Files.createDirectories(Path.of(options.dataDir()));
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(Arrays.stream(options.jvmArgs().split("\\s+")).filter(s -> !s.isBlank()).toList());
        command.add("-jar");
        command.add(jar.toString());
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dataDir.resolve("system.log").toFile());
        builder.environment().put("PORT", String.valueOf(options.port()));
        builder.environment().put("KAFKA_PORT", String.valueOf(options.kafkaPort()));
        builder.environment().put("INTAKE_SMTP_PORT", "-1");
        builder.environment().put("DATA_DIR", dataDir.toString());
        builder.environment().remove("KAFKA_BOOTSTRAP_SERVERS");
        builder.environment().putIfAbsent("MALLOC_ARENA_MAX", "2"); // as the run command (docs/performance.md)
        System.out.println("bench: starting " + String.join(" ", command) + " (log " + dataDir.resolve("system.log")
                + ")");
        Process process = builder.start();
        String url = "http://localhost:" + options.port();
        Target target = new Target(url, "localhost:" + options.kafkaPort(), process, process.pid(), dataDir, own,
                jar.getFileName() + " [" + options.jvmArgs() + "]");
        try {
            target.awaitHealthy(Duration.ofMinutes(3));
        } catch (Exception e) {
            target.close();
            throw e;
        }
        return target;
    }

    private void awaitHealthy(Duration within) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + within.toNanos();
        long started = System.nanoTime();
        while (System.nanoTime() < deadline) {
            if (process != null && !process.isAlive()) {
                // the data directory, and the log with it, is deleted on close: show the log's end here
                throw new IllegalStateException("The system exited with " + process.exitValue()
                        + "; the end of its log:\n" + tail(dataDir.resolve("system.log"), LOG_LINES_SHOWN));
            }
            try {
                HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(url + "/health"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                HttpResponse<String> flows = http.send(HttpRequest.newBuilder(URI.create(url + "/api/v1/flows"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                if (health.statusCode() == 200 && flows.statusCode() == 200 && flows.body().contains("storefront")) {
                    System.out.printf("bench: system up in %.1f s (pid %d)%n", (System.nanoTime() - started) / 1e9,
                            pid);
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("The system did not become healthy within " + within);
    }

    /** The last {@code lines} lines of {@code log}. */
    static String tail(Path log, int lines) {
        try {
            List<String> all = Files.readAllLines(log);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(could not read " + log + ": " + e + ")";
        }
    }

    String url() {
        return url;
    }

    String kafka() {
        return kafka;
    }

    String describe() {
        return description;
    }

    /** The system's process id, or -1 when unknown. */
    long pid() {
        return pid;
    }

    /** The system's resident memory in kB, or -1 when unknown. */
    long rssKb() {
        return pid > 0 ? LoadBench.rssKb(Path.of("/proc", String.valueOf(pid), "status")) : -1;
    }

    /** CPU time (user and system) the system's process used so far, in seconds; -1 when unknown. */
    double cpuSeconds() {
        return pid > 0 ? cpuSeconds(pid) : -1;
    }

    /** The CPU time of process {@code pid} so far, in seconds; -1 when unknown. */
    static double cpuSeconds(long pid) {
        try {
            return ProcStat.cpuTicks(Path.of("/proc", String.valueOf(pid), "stat")) / 100.0;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Keeps the data directory this benchmark made (the system's log is in it) when the benchmark ends. */
    void keepData() {
        keepData = true;
        if (dataDir != null) {
            System.out.println("bench: the system's data directory and log are kept in " + dataDir);
        }
    }

    @Override
    public synchronized void close() throws Exception {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
        if (ownDataDir && !keepData && dataDir != null && Files.exists(dataDir)) {
            try (Stream<Path> files = Files.walk(dataDir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
