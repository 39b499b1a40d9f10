package io.orderflow.standalone.bench;

import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.json.Json;
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
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;

/**
 * The crash-recovery rounds of {@code standalone/crash-recovery.sh}: starts the standalone system as a child JVM on one
 * data directory and, round after round, kills it with SIGKILL at one of these moments, then starts it again on the
 * same data at once:
 * <ul>
 *     <li>{@code idle}: no order in flight;</li>
 *     <li>{@code load-48}, {@code load-256}: 2 to 8 s into a load of that many storefront orders in flight;</li>
 *     <li>{@code restoring}: 0.5 to 3 s after the previous start answered, under a load of 48;</li>
 *     <li>{@code twice}: under a load of 48, then again 1 to 8 s after that restart (two kills within 10 s).</li>
 * </ul>
 * {@code --points} names the kill points the rounds take in turn (a comma-separated subset of the five; all by
 * default).
 * Each order is posted with an {@code Idempotency-Key} and posted again under the same key until the system answers
 * it (connection errors and 503 while the system is down). The keys are this run's own (they carry its start time), so a
 * run on a copy of a directory an earlier run used never has an old order replayed for a new one. Per round it prints the kill point, the time from the
 * restart to readiness ({@code /actuator/health/readiness} 200), from readiness to a newly started order completed,
 * orders accepted and never completed (lost), and nodes with more than one run (run twice); then the minimum, median
 * and maximum. It exits non-zero when any round missed the goal: ready within 30 s, the new order completed within
 * 10 s of ready, nothing lost or run twice.
 *
 * With {@code --keep=N} the system first takes N storefront orders (256 in flight) and the rounds start once every
 * one has completed, so each restart restores the state of N orders kept; after the last round every order kept must
 * still be there and completed. With {@code --from=DIR} the system starts on a copy of a data directory instead (one an
 * earlier run filled and left stopped cleanly, e.g. the {@code data} of a {@code --keep} run's work directory), and
 * the orders completed in it at the first start, once none of them is queued or running any more, count as kept.
 *
 * With {@code --aot-cache=FILE} every start uses that ahead-of-time cache (JDK 25+): the first start records it
 * afresh, and after the fill the system is stopped cleanly to write it and started again from it. A jar
 * unpacked by {@code standalone/run.sh} ({@code standalone/target/app/standalone.jar}, its dependencies in
 * {@code lib/} beside it) is started where it is, as the cache requires; an exec jar is copied into the work
 * directory first, so that a build during the rounds does not change it.
 *
 * <pre>
 * java ... CrashRounds --jar=standalone/target/standalone-0.1.0-SNAPSHOT-exec.jar --rounds=20 [--work=DIR]
 *      [--jvm-args="..."] [--port=28180] [--kafka-port=29192] [--seed=N] [--keep=N | --from=DIR]
 *      [--aot-cache=FILE] [--points=twice,restoring]
 * </pre>
 */
public final class CrashRounds {

    private static final Duration READY_WITHIN = Duration.ofSeconds(30);
    private static final Duration COMPLETED_WITHIN = Duration.ofSeconds(10);
    /** How long a round waits for readiness and for its orders before it counts them as stalled or lost. */
    private static final Duration GIVE_UP = Duration.ofMinutes(4);
    private static final List<String> POINTS = List.of("idle", "load-48", "load-256", "restoring", "twice");
    private static final String BODY = """
            {"flowId":"storefront_order","input":{"type":"storefront_order","customerId":"cus_crash",
             "currency":"USD","lines":[{"sku":"TSHIRT-RED-M","name":"T-shirt","qty":2,"unitPrice":19.5}],
             "meta":{"shipTo":"1 Main Street"}}}""";

    private final Path jar;
    /** The ahead-of-time cache every start uses (recorded by the first when absent); null: none. */
    private final Path aotCache;
    /** The jar the system starts from: {@link #jar} itself when unpacked, else a copy in the work directory. */
    private Path started;
    private final List<String> jvmArgs;
    private final Path work;
    private final int port;
    private final int kafkaPort;
    private final String base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .executor(Executors.newVirtualThreadPerTaskExecutor()).build();
    /** Every order the system accepted: idempotency key to order id. */
    private final Map<String, String> accepted = new ConcurrentHashMap<>();
    /**
     * Keys posted and never answered (the system died under them, or answered 503): each may have started an order,
     * so each is posted again after every round until it is answered, and only then counted.
     */
    private final List<String> unanswered = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final AtomicInteger keys = new AtomicInteger();
    /** What this run's idempotency keys begin with: unique per run, as an order's key is per order. */
    private final String keyPrefix = "crash-" + Long.toString(System.currentTimeMillis(), 36) + "-";
    /** Orders the rounds started to time the first completion after a restart. */
    private final AtomicInteger probes = new AtomicInteger();
    private Process process;
    private long startedAt;

    private CrashRounds(Path jar, List<String> jvmArgs, Path work, int port, int kafkaPort, Path aotCache) {
        this.jar = jar;
        this.aotCache = aotCache;
        this.jvmArgs = jvmArgs;
        this.work = work;
        this.port = port;
        this.kafkaPort = kafkaPort;
        this.base = "http://localhost:" + port;
    }

    record Round(int number, String at, String load, String point, double readySeconds, double completedSeconds,
                 int accepted, int lost, int runTwice, String note) {

        boolean metGoal() {
            return readySeconds >= 0 && readySeconds <= READY_WITHIN.toSeconds() && completedSeconds >= 0
                    && completedSeconds <= COMPLETED_WITHIN.toSeconds() && lost == 0 && runTwice == 0;
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new java.util.HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 2 && eq < arg.length() - 1) {
                options.put(arg.substring(2, eq), arg.substring(eq + 1));
            }
        }
        Path jar = Path.of(options.getOrDefault("jar", "standalone/target/standalone-0.1.0-SNAPSHOT-exec.jar"));
        Path work = Path.of(options.getOrDefault("work", "/tmp/orderflow-crash-recovery"));
        int rounds = Integer.parseInt(options.getOrDefault("rounds", "10"));
        long seed = Long.parseLong(options.getOrDefault("seed", String.valueOf(System.currentTimeMillis())));
        List<String> jvmArgs = Arrays.stream(options.getOrDefault("jvm-args", "").split("\\s+"))
                .filter(s -> !s.isBlank()).toList();
        int keep = Integer.parseInt(options.getOrDefault("keep", "0"));
        String aotCache = options.get("aot-cache");
        String from = options.get("from");
        List<String> points = Arrays.stream(options.getOrDefault("points", String.join(",", POINTS)).split(","))
                .map(String::strip).filter(s -> !s.isEmpty()).toList();
        if (points.isEmpty() || !POINTS.containsAll(points)) {
            throw new IllegalArgumentException("--points takes kill points from " + POINTS + ", not " + points);
        }
        CrashRounds crash = new CrashRounds(jar.toAbsolutePath(), jvmArgs, work.toAbsolutePath(),
                Integer.parseInt(options.getOrDefault("port", "28180")),
                Integer.parseInt(options.getOrDefault("kafka-port", "29192")),
                aotCache == null || aotCache.isBlank() ? null : Path.of(aotCache).toAbsolutePath());
        System.out.printf("crash rounds: %d, seed %d, jar %s, JVM options [%s], %,d orders kept, data and logs in %s%n",
                rounds, seed, jar, String.join(" ", jvmArgs), keep, work);
        crash.from = from == null || from.isBlank() ? null : Path.of(from).toAbsolutePath();
        crash.points = points;
        List<Round> done = crash.run(rounds, keep, new Random(seed));
        boolean keptWhole = crash.kept == 0 || crash.keptWhole(crash.kept);
        System.exit(keptWhole && done.stream().allMatch(Round::metGoal) ? 0 : 1);
    }

    /** The kill points the rounds take in turn ({@code --points}; all five by default). */
    private List<String> points = POINTS;
    /** A data directory to start from instead of an empty one ({@code --from}). */
    private Path from;
    /** The orders kept before the first round: filled ({@code --keep}) or found ({@code --from}). */
    private long kept;

    private List<Round> run(int rounds, int keep, Random random) throws Exception {
        for (int taken : new int[] {port, kafkaPort}) {
            try (java.net.ServerSocket probe = new java.net.ServerSocket(taken)) {
                probe.setReuseAddress(true);
            } catch (IOException e) {
                throw new IllegalStateException("Port " + taken + " is taken: another system would answer the rounds "
                        + "(choose others with --port and --kafka-port)", e);
            }
        }
        deleteTree(work);
        Files.createDirectories(work.resolve("data"));
        if (from != null) {
            TestKafka.copyTree(from, work.resolve("data"));
        }
        if (aotCache != null) {
            // recorded afresh for the jar of these rounds
            Files.deleteIfExists(aotCache);
        }
        if (Files.isDirectory(jar.resolveSibling("lib"))) {
            started = jar;
        } else {
            // its own copy: a build during the rounds does not change the jar a restart starts
            started = Files.copy(jar, work.resolve("standalone.jar"));
        }
        List<Round> done = new ArrayList<>();
        try {
            start();
            double first = awaitReady();
            System.out.printf("first start ready in %.1f s%n", first);
            kept = keep;
            if (from != null) {
                kept = completedOnceSettled();
                System.out.printf("started on a copy of %s: %,d orders completed in it%n", from, kept);
            }
            if (keep > 0) {
                long filling = System.nanoTime();
                Fill.fill(base, 0, keep, 256);
                long deadline = System.nanoTime() + GIVE_UP.toNanos();
                while (completed() < keep && System.nanoTime() < deadline) {
                    sleep(1000);
                }
                System.out.printf("kept %,d orders, completed %,d, in %.0f s%n", keep, completed(),
                        (System.nanoTime() - filling) / 1e9);
            }
            if (aotCache != null && !Files.exists(aotCache)) {
                long stopping = System.nanoTime();
                process.destroy();
                process.waitFor(10, TimeUnit.MINUTES);
                System.out.printf("stopped to write the ahead-of-time cache (%,d MB) in %.0f s%n",
                        Files.size(aotCache) >> 20, (System.nanoTime() - stopping) / 1e9);
                start();
                System.out.printf("started from it, ready in %.1f s%n", awaitReady());
            }
            header();
            for (int i = 1; i <= rounds; i++) {
                Round round = round(i, points.get((i - 1) % points.size()), random);
                done.add(round);
                row(round);
            }
        } finally {
            if (process != null) {
                process.destroy();
                process.waitFor(60, TimeUnit.SECONDS);
                process.destroyForcibly();
            }
        }
        summary(done);
        return done;
    }

    private Round round(int number, String point, Random random) throws Exception {
        int before = accepted.size();
        AtomicBoolean loading = new AtomicBoolean();
        String note = "";
        try (ExecutorService load = Executors.newVirtualThreadPerTaskExecutor()) {
            int inFlight = switch (point) {
                case "idle" -> 0;
                case "load-256" -> 256;
                default -> 48;
            };
            if (inFlight > 0) {
                loading.set(true);
                for (int i = 0; i < inFlight; i++) {
                    load.submit(() -> keepPosting(loading));
                }
            }
            switch (point) {
                case "idle" -> Thread.sleep(1000 + random.nextInt(3000));
                case "restoring" -> {
                    // this round's kill comes shortly after the previous start answered: kill, start and kill
                    // again while the restarted system restores and takes its load back
                    Thread.sleep(2000 + random.nextInt(4000));
                    kill();
                    start();
                    awaitReady();
                    Thread.sleep(500 + random.nextInt(2500));
                }
                default -> Thread.sleep(2000 + random.nextInt(6000));
            }
            String killedAt = java.time.LocalTime.now(java.time.ZoneOffset.UTC)
                    .format(java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss"));
            String loadAtKill = loadAverage();
            kill();
            if ("twice".equals(point)) {
                start();
                Thread.sleep(1000 + random.nextInt(7000));
                kill();
            }
            long restarted = System.nanoTime();
            start();
            double ready = awaitReady();
            if (ready < 0) {
                note = "not ready after " + GIVE_UP.toSeconds() + " s; " + diagnose();
            }
            double readyAt = (System.nanoTime() - restarted) / 1e9;
            double completed = -1;
            if (ready >= 0) {
                long readyNanos = System.nanoTime();
                String id = null;
                long deadline = readyNanos + GIVE_UP.toNanos();
                while (id == null && System.nanoTime() < deadline) {
                    id = startOrder(keyPrefix + "probe-" + number);
                    if (id == null) {
                        sleep(100);
                    }
                }
                if (id != null) {
                    probes.incrementAndGet();
                }
                if (id != null && awaitCompleted(id, Duration.ofNanos(deadline - System.nanoTime()))) {
                    completed = (System.nanoTime() - readyNanos) / 1e9;
                } else {
                    note = "probe order not completed; " + diagnose();
                }
            }
            loading.set(false);
            load.shutdown();
            load.awaitTermination(2, TimeUnit.MINUTES);
            // orders posted but never answered (this round's and earlier ones') are posted again under their key
            for (String key : List.copyOf(unanswered)) {
                String id = startOrder(key);
                if (id != null) {
                    accepted.put(key, id);
                    unanswered.remove(key);
                }
            }
            int lost = 0;
            int twice = 0;
            long deadline = System.nanoTime() + GIVE_UP.toNanos();
            for (String id : List.copyOf(accepted.values())) {
                JsonNode order = awaitEnded(id, deadline);
                if (order == null || !"completed".equals(order.path("status").asString())) {
                    lost++;
                    continue;
                }
                for (JsonNode node : order.path("nodes")) {
                    if (node.path("runs").size() > 1) {
                        twice++;
                    }
                }
            }
            return new Round(number, killedAt, loadAtKill, point, ready >= 0 ? readyAt : -1, completed,
                    accepted.size() - before, lost, twice, note);
        }
    }

    /** Orders completed, by the counts. */
    private long completed() {
        JsonNode counts = get("/api/v1/orders/counts");
        return counts == null ? -1 : counts.path("counts").path("completed").asLong();
    }

    /**
     * Orders completed, once no order is queued or running: what a copied directory holds, with the orders its
     * earlier run left in flight carried to their end (those end later than the system is ready).
     */
    private long completedOnceSettled() {
        long deadline = System.nanoTime() + GIVE_UP.toNanos();
        JsonNode counts = get("/api/v1/orders/counts");
        while ((counts == null || counts.path("counts").path("queued").asLong() > 0
                || counts.path("counts").path("running").asLong() > 0) && System.nanoTime() < deadline) {
            sleep(1000);
            counts = get("/api/v1/orders/counts");
        }
        return counts == null ? -1 : counts.path("counts").path("completed").asLong();
    }

    /**
     * After the rounds: whether every order kept and every order the rounds started has completed (by the counts,
     * waiting for the last restart's orders to end).
     */
    boolean keptWhole(long keep) throws Exception {
        start();
        awaitReady();
        try {
            for (String key : List.copyOf(unanswered)) {
                String id = startOrder(key);
                if (id != null) {
                    accepted.put(key, id);
                    unanswered.remove(key);
                }
            }
            long expected = keep + accepted.size() + probes.get();
            long deadline = System.nanoTime() + GIVE_UP.toNanos();
            JsonNode counts = get("/api/v1/orders/counts");
            while ((counts == null || counts.path("counts").path("completed").asLong() < expected)
                    && System.nanoTime() < deadline) {
                sleep(1000);
                counts = get("/api/v1/orders/counts");
            }
            System.out.printf("after the rounds: %s (orders kept %,d, accepted in the rounds %,d, probes %d, never "
                    + "answered %d)%n", counts, keep, accepted.size(), probes.get(), unanswered.size());
            return counts != null && counts.path("counts").path("completed").asLong() >= expected;
        } finally {
            process.destroy();
            process.waitFor(60, TimeUnit.SECONDS);
        }
    }

    /** One client of the load: posts a new order as soon as its previous one was answered, until the load stops. */
    private void keepPosting(AtomicBoolean loading) {
        while (loading.get()) {
            String key = keyPrefix + keys.incrementAndGet();
            String id = null;
            while (id == null && loading.get()) {
                id = startOrder(key);
                if (id == null) {
                    sleep(200);
                }
            }
            if (id == null) {
                unanswered.add(key);
            } else {
                accepted.put(key, id);
            }
        }
    }

    /** Starts an order under {@code key}: its id, or null when the system did not accept it (down, 503, timeout). */
    private String startOrder(String key) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/orders"))
                    .timeout(Duration.ofSeconds(15)).header("content-type", "application/json")
                    .header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.ofString(BODY)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() / 100 != 2) {
                return null;
            }
            return Json.MAPPER.readTree(response.body()).path("orderId").asString(null);
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private boolean awaitCompleted(String id, Duration within) {
        JsonNode order = awaitEnded(id, System.nanoTime() + within.toNanos());
        return order != null && "completed".equals(order.path("status").asString());
    }

    /** The order once it ended (completed or another terminal status), or null when it had not by {@code deadline}. */
    private JsonNode awaitEnded(String id, long deadline) {
        while (System.nanoTime() < deadline) {
            JsonNode order = get("/api/v1/orders/" + id);
            if (order != null && List.of("completed", "declined", "cancelled", "failed", "rolled_back")
                    .contains(order.path("status").asString())) {
                return order;
            }
            sleep(100);
        }
        return null;
    }

    private JsonNode get(String path) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base + path))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? Json.MAPPER.readTree(response.body()) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private void start() throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvmArgs);
        if (aotCache != null) {
            if (Files.exists(aotCache)) {
                command.add("-XX:AOTCache=" + aotCache);
                command.add("-Xlog:aot*=error");
            } else {
                command.add("-XX:AOTCacheOutput=" + aotCache);
                command.add("-Xlog:aot*=error");
            }
        }
        command.add("-jar");
        command.add(started.toString());
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(work.resolve("system.log").toFile()));
        builder.environment().put("PORT", String.valueOf(port));
        builder.environment().put("KAFKA_PORT", String.valueOf(kafkaPort));
        builder.environment().put("INTAKE_SMTP_PORT", "-1");
        builder.environment().put("DATA_DIR", work.resolve("data").toString());
        builder.environment().put("AI_MODE", "mock");
        builder.environment().remove("KAFKA_BOOTSTRAP_SERVERS");
        builder.environment().putIfAbsent("MALLOC_ARENA_MAX", "2");
        process = builder.start();
        startedAt = System.nanoTime();
        Process started = process;
        Runtime.getRuntime().addShutdownHook(new Thread(started::destroyForcibly));
    }

    private void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** Seconds from the start to readiness, or -1 when the system was not ready within {@link #GIVE_UP}. */
    private double awaitReady() {
        long deadline = startedAt + GIVE_UP.toNanos();
        while (System.nanoTime() < deadline && process.isAlive()) {
            try {
                HttpResponse<Void> response = http.send(HttpRequest.newBuilder(
                                URI.create(base + "/actuator/health/readiness")).timeout(Duration.ofSeconds(3)).build(),
                        HttpResponse.BodyHandlers.discarding());
                if (response.statusCode() == 200) {
                    return (System.nanoTime() - startedAt) / 1e9;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            }
            sleep(100);
        }
        return -1;
    }

    /** What a stalled system waits for: its readiness checks and a thread dump of its stream threads (to the log). */
    private String diagnose() {
        try {
            HttpResponse<String> readiness = http.send(HttpRequest.newBuilder(
                    URI.create(base + "/actuator/health/readiness")).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            Path dump = work.resolve("stall-" + System.currentTimeMillis() + ".txt");
            new ProcessBuilder("jstack", String.valueOf(process.pid())).redirectErrorStream(true)
                    .redirectOutput(dump.toFile()).start().waitFor(30, TimeUnit.SECONDS);
            return "readiness " + readiness.statusCode() + " " + readiness.body() + "; threads in " + dump;
        } catch (IOException e) {
            return "no readiness answer: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private static void header() {
        System.out.println("| round | killed (UTC) | load average (1 min) | kill point | restart to ready (s) "
                + "| ready to a new order completed (s) | orders accepted | orders lost | nodes run twice | note |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|");
    }

    private static void row(Round round) {
        System.out.printf(Locale.ROOT, "| %d | %s | %s | %s | %s | %s | %d | %d | %d | %s |%n", round.number(),
                round.at(), round.load(), round.point(),
                seconds(round.readySeconds()), seconds(round.completedSeconds()), round.accepted(), round.lost(),
                round.runTwice(), round.note());
        System.out.flush();
    }

    private static void summary(List<Round> rounds) {
        if (rounds.isEmpty()) {
            return;
        }
        System.out.println();
        System.out.println("| | min | median | max |");
        System.out.println("|---|---|---|---|");
        stat("restart to ready (s)", rounds.stream().mapToDouble(Round::readySeconds).toArray());
        stat("ready to a new order completed (s)", rounds.stream().mapToDouble(Round::completedSeconds).toArray());
        System.out.printf("%d of %d rounds met the goal (ready within %d s, a new order completed within %d s of "
                        + "ready, nothing lost or run twice); orders lost %d, nodes run twice %d%n",
                rounds.stream().filter(Round::metGoal).count(), rounds.size(), READY_WITHIN.toSeconds(),
                COMPLETED_WITHIN.toSeconds(), rounds.stream().mapToInt(Round::lost).sum(),
                rounds.stream().mapToInt(Round::runTwice).sum());
    }

    /** A row of min, median and max; a round that never got there (-1) counts as the longest. */
    private static void stat(String name, double[] values) {
        double[] sorted = Arrays.stream(values).map(v -> v < 0 ? Double.POSITIVE_INFINITY : v).sorted().toArray();
        int n = sorted.length;
        double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        System.out.printf(Locale.ROOT, "| %s | %s | %s | %s |%n", name, seconds(sorted[0]), seconds(median),
                seconds(sorted[n - 1]));
    }

    /** The machine's load average over the last minute, from /proc/loadavg ("?" where there is none). */
    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    private static String seconds(double value) {
        return value < 0 || Double.isInfinite(value) ? "never" : String.format(Locale.ROOT, "%.1f", value);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
