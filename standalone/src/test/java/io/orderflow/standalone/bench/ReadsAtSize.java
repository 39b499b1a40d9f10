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
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Reads at size: starts the standalone exec jar with the run command's JVM settings on a fresh data directory, fills
 * it with storefront orders as fast as it takes them (256 in flight), and after each step measures every read the
 * dashboard and the API make (p50/p99 at 4 and at 32 in flight), the JVM's RSS and the data directory's size; at the
 * end, a clean restart and a {@code kill -9} restart, each timed to the first answered list read.
 *
 * <pre>
 * java -cp standalone/target/test-classes io.orderflow.standalone.bench.ReadsAtSize \
 *     &lt;exec-jar&gt; &lt;work-dir&gt; &lt;orders per step&gt; &lt;steps&gt; "&lt;jvm args&gt;"
 * </pre>
 *
 * With 0 steps it keeps the work directory a run before filled and only measures the reads on it, in rounds (2 by
 * default, or the sixth argument; the first rounds warm the JIT, and with the run command's C2-only compilation a
 * read is compiled only after a few thousand): a second jar can then be compared on the same orders.
 */
public final class ReadsAtSize {

    private static final int PORT = 18080;
    private static final String BASE = "http://localhost:" + PORT;
    private static final int FILL_IN_FLIGHT = 256;
    private static final int READS = 200;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private ReadsAtSize() {
    }

    public static void main(String[] args) throws Exception {
        Path jar = Path.of(args[0]);
        Path work = Path.of(args[1]);
        int perStep = Integer.parseInt(args[2]);
        int steps = Integer.parseInt(args[3]);
        List<String> jvmArgs = args.length > 4 ? Arrays.asList(args[4].trim().split("\\s+")) : List.of();
        if (steps == 0) {
            measureKept(jar, work, jvmArgs, args.length > 5 ? Integer.parseInt(args[5]) : 2);
            return;
        }
        deleteTree(work);
        Files.createDirectories(work);
        Process system = start(jar, work, jvmArgs);
        try {
            awaitReady(Duration.ofMinutes(3));
            System.out.printf("%-8s | %-22s | %-17s | %-17s%n", "orders", "read", "p50 / p99 ms, 4", "p50 / p99 ms, 32");
            int total = 0;
            for (int step = 1; step <= steps; step++) {
                long t0 = System.nanoTime();
                Fill.fill(BASE, total, perStep, FILL_IN_FLIGHT);
                total += perStep;
                double seconds = (System.nanoTime() - t0) / 1e9;
                System.out.printf("filled %,d orders in %.0f s (%.0f orders/s); RSS %s MB; data dir %s MB%n", total,
                        seconds, perStep / seconds, rssMb(system.pid()), sizeMb(work.resolve("data")));
                measureReads(total, system);
            }
            long before = System.nanoTime();
            stop(system, false);
            System.out.printf("clean stop took %.1f s%n", (System.nanoTime() - before) / 1e9);
            system = restart(jar, work, jvmArgs, "clean restart");
            system.destroyForcibly().waitFor();
            System.out.println("killed with SIGKILL");
            system = restart(jar, work, jvmArgs, "restart after kill -9");
        } finally {
            stop(system, true);
        }
    }

    /** The reads on the orders a previous run left in {@code work}, measured twice on one start. */
    private static void measureKept(Path jar, Path work, List<String> jvmArgs, int rounds) throws Exception {
        Process system = restart(jar, work, jvmArgs, "start on the kept orders");
        try {
            // the benchmark runs on the JDK alone: the total is the counts' last number field
            java.util.regex.Matcher total = java.util.regex.Pattern.compile("\"total\":(\\d+)")
                    .matcher(get("/api/v1/orders/counts").body());
            int kept = total.find() ? Integer.parseInt(total.group(1)) : -1;
            System.out.printf("%-8s | %-22s | %-17s | %-17s%n", "orders", "read", "p50 / p99 ms, 4", "p50 / p99 ms, 32");
            for (int round = 1; round <= rounds; round++) {
                System.out.printf("round %d%n", round);
                measureReads(kept, system);
            }
        } finally {
            stop(system, true);
        }
    }

    private static Process restart(Path jar, Path work, List<String> jvmArgs, String what) throws Exception {
        long t0 = System.nanoTime();
        Process system = start(jar, work, jvmArgs);
        awaitReady(Duration.ofMinutes(10));
        System.out.printf("%s: list answered %.1f s after the start; RSS %s MB; data dir %s MB%n", what,
                (System.nanoTime() - t0) / 1e9, rssMb(system.pid()), sizeMb(work.resolve("data")));
        return system;
    }

    private static Process start(Path jar, Path work, List<String> jvmArgs) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        command.addAll(List.of("-jar", jar.toString()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(work.resolve("standalone.log").toFile()));
        Map<String, String> env = builder.environment();
        env.put("PORT", String.valueOf(PORT));
        env.put("KAFKA_PORT", "19092");
        env.put("DATA_DIR", work.resolve("data").toString());
        env.put("INTAKE_SMTP_PORT", "-1");
        env.put("AI_MODE", "mock");
        // the benchmark is one caller making thousands of reads a minute: above the per-caller read limit
        env.put("READ_RATE_LIMIT", "10000000");
        return builder.start();
    }

    private static void stop(Process system, boolean quietly) throws InterruptedException {
        if (system.isAlive()) {
            system.destroy();
            if (!system.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) && quietly) {
                system.destroyForcibly();
            }
        }
    }

    /** Ready for reads: the first page of the list answers 200. */
    private static void awaitReady(Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (get("/api/v1/orders?limit=50").statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("not ready within " + within);
    }

    private static HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(BASE + path)).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static void measureReads(int total, Process system) throws Exception {
        String someOrder = firstOrderId();
        List<String[]> reads = List.of(
                new String[] {"list, first page", "/api/v1/orders?limit=50"},
                new String[] {"list, 200 rows", "/api/v1/orders"},
                new String[] {"list, by change", "/api/v1/orders?limit=50&sort=updated"},
                new String[] {"list, completed", "/api/v1/orders?limit=50&status=completed"},
                new String[] {"list, since an hour", "/api/v1/orders?limit=50&since="
                        + (System.currentTimeMillis() - 3_600_000)},
                new String[] {"q=<customer>", "/api/v1/orders?limit=50&q=cus_417"},
                new String[] {"q=<sku>", "/api/v1/orders?limit=50&q=SKU-42"},
                new String[] {"q=<name>", "/api/v1/orders?limit=50&q=customer%20417"},
                new String[] {"counts", "/api/v1/orders/counts"},
                new String[] {"counts, q=<customer>", "/api/v1/orders/counts?q=cus_417"},
                new String[] {"approvals inbox", "/api/v1/approvals?status=pending"},
                new String[] {"one order", "/api/v1/orders/" + someOrder});
        for (String[] read : reads) {
            double cpu = cpuSeconds(system.pid());
            String at4 = percentiles(time(read[1], 4));
            double perRead = (cpuSeconds(system.pid()) - cpu) * 1000 / READS;
            String at32 = percentiles(time(read[1], 32));
            System.out.printf("%-8s | %-22s | %-17s | %-17s | %.1f ms CPU a read%n", String.format("%,d", total),
                    read[0], at4, at32, perRead);
        }
        System.out.printf("after the reads: RSS %s MB%n", rssMb(system.pid()));
    }

    private static String firstOrderId() throws Exception {
        String page = get("/api/v1/orders?limit=1").body();
        int at = page.indexOf("ord_");
        return page.substring(at, page.indexOf('"', at));
    }

    private static long[] time(String path, int inFlight) throws InterruptedException {
        ConcurrentLinkedQueue<Long> nanos = new ConcurrentLinkedQueue<>();
        AtomicLong failures = new AtomicLong();
        AtomicInteger left = new AtomicInteger(READS);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int worker = 0; worker < inFlight; worker++) {
                pool.submit(() -> {
                    while (left.getAndDecrement() > 0) {
                        long t0 = System.nanoTime();
                        try {
                            int status = get(path).statusCode();
                            if (status != 200) {
                                failures.incrementAndGet();
                            }
                        } catch (Exception e) {
                            failures.incrementAndGet();
                        }
                        nanos.add(System.nanoTime() - t0);
                    }
                    return null;
                });
            }
        }
        if (failures.get() > 0) {
            System.out.println("  " + failures.get() + " of " + READS + " answers were not 200 for " + path);
        }
        return nanos.stream().mapToLong(Long::longValue).sorted().toArray();
    }

    private static String percentiles(long[] sorted) {
        return String.format("%.1f / %.1f", sorted[sorted.length / 2] / 1e6,
                sorted[(int) Math.ceil(sorted.length * 0.99) - 1] / 1e6);
    }

    /** The CPU the process has used (user and system), in seconds: {@code /proc/<pid>/stat} at 100 ticks a second. */
    private static double cpuSeconds(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0;
        } catch (IOException e) {
            return Double.NaN;
        }
    }

    private static String rssMb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return String.valueOf(Long.parseLong(line.replaceAll("\\D", "")) / 1024);
                }
            }
        } catch (IOException e) {
            return "?";
        }
        return "?";
    }

    /** The disk the directory takes ({@code du}: blocks in use, not the length of Kafka's sparse index files). */
    private static long sizeMb(Path dir) {
        try {
            Process du = new ProcessBuilder("du", "-sk", dir.toString()).redirectErrorStream(true).start();
            String out = new String(du.getInputStream().readAllBytes()).trim();
            du.waitFor();
            return Long.parseLong(out.split("\\s+")[0]) / 1024;
        } catch (IOException | InterruptedException | NumberFormatException e) {
            return -1;
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }
}
