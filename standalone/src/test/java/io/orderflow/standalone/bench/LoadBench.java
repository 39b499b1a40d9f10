package io.orderflow.standalone.bench;

import io.orderflow.kafka.SocketBuffers;
import io.orderflow.schemas.events.OrderUpdate;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.topics.Topics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;

/**
 * The benchmark command (README, "Performance"; docs/performance.md): drives storefront orders through a standalone
 * system from outside and prints what the system does with them. It is a test-scope main, run through Maven:
 *
 * <pre>
 * ./mvnw -B -o -pl standalone -am -Pbench -DskipTests verify [-Dbench.orders=6000 -Dbench.concurrency=48 ...]
 * </pre>
 *
 * Without {@code --url} it starts the system as a child process ({@code java <jvm args> -jar <jar>}, by default the
 * exec jar this build made) on its own data directory and ports, and stops it at the end; with {@code --url} (plus
 * {@code --kafka} and, for memory, {@code --pid}) it targets a running one. Completion is seen on the public
 * {@code order-updates} topic, never by polling an order; GETs are sampled at a fixed rate, as a person watching orders
 * would read them. Records per order are the growth of every topic's end offsets (transaction markers included) over
 * the measured orders. Last, the same run measures the machine's Kafka exactly-once pass-through rate: a tiny Kafka
 * Streams application with {@code exactly_once_v2} that reads, stores and writes records on the same broker.
 */
public final class LoadBench {

    private static final Set<OrderStatus> ENDED = Set.of(OrderStatus.COMPLETED, OrderStatus.FAILED,
            OrderStatus.DECLINED, OrderStatus.CANCELLED, OrderStatus.ROLLED_BACK);

    /** The over-time breakdown's window: short enough to show a burst, long enough for a p99 of its own. */
    private static final int TIMELINE_WINDOW_SECONDS = 5;

    private LoadBench() {
    }

    public static void main(String[] args) throws Exception {
        BenchOptions options = BenchOptions.parse(args);
        System.out.println("bench: " + options);
        try (Target target = Target.open(options)) {
            // Ctrl-C stops the system this benchmark started and deletes its data too
            Thread stop = new Thread(() -> {
                try {
                    target.close();
                } catch (Exception ignored) {
                    // exiting anyway
                }
            });
            Runtime.getRuntime().addShutdownHook(stop);
            try {
                run(options, target);
            } catch (Exception | Error e) {
                target.keepData();
                throw e;
            }
        }
        System.exit(0);
    }

    private static void run(BenchOptions options, Target target) throws Exception {
        try (Completions completions = new Completions(target.kafka());
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, target.kafka()));
             BenchHttp http = new BenchHttp(target.url(), options.concurrency() + 1)) {
            // the hops reader starts with the warm-up: its first fetches at the measured run's start made it slower
            Hops hops = options.hops() ? new Hops(target.kafka()) : null;
            // subscribed before the warm-up, so that the dispatcher's code is as warm as the order path's
            Subscribers subscribers = Subscribers.subscribe(http, options.subscribers());
            if (options.warmup() > 0) {
                System.out.printf("warm-up: %d orders%n", options.warmup());
                // as fast as the concurrency allows, whatever the rate: a fixed amount of work for the JIT. With the
                // same sampled reads as the measurement: without them the first GETs of the measured run met code
                // the JIT had compiled for POSTs alone, and the run's first 10 to 15 s queued behind some 300
                // deoptimisations (mostly class checks in Spring, Reactor and Jackson) and their recompilation.
                Phase warm = new Phase(options, 0, http, completions, options.warmup(), "warmup");
                warm.drive();
            }
            if (options.rate() > 0 && options.settleSeconds() > 0) {
                // Then a while at the measured rate, with the measurement's own requests to the broker. Code that
                // C2 compiled under saturation (polls that always found records, no metadata or offsets requests)
                // deoptimised at once when the paced run began: some 80 methods, the broker's request handling and
                // the stream threads' poll loop among them, and the first 10 s of the run waited for C2.
                System.out.printf("settle: %d s at %s orders/s%n", options.settleSeconds(), options.rate());
                endOffsets(admin);
                new Phase(options, options.rate(), http, completions,
                        (int) Math.ceil(options.rate() * options.settleSeconds()), "settle").drive();
            }
            Map<String, Long> before = endOffsets(admin);
            Map<String, Long> bytesBefore = logBytes(admin);
            Phase measured = new Phase(options, options.rate(), http, completions, options.orders(), "run");
            measured.pid = target.pid();
            measured.hops = hops;
            long rssBefore = target.rssKb();
            double cpuBefore = target.cpuSeconds();
            double benchCpuBefore = Target.cpuSeconds(ProcessHandle.current().pid());
            Map<String, Long> partsBefore = ThreadCpu.read(target.pid());
            measured.drive();
            if (measured.hops != null) {
                measured.hops.close();
            }
            Subscribers.Drained drained = subscribers == null ? null : subscribers.drain(measured.ids);
            Map<String, Long> partsAfter = ThreadCpu.read(target.pid());
            double cpu = target.cpuSeconds() - cpuBefore;
            double benchCpu = Target.cpuSeconds(ProcessHandle.current().pid()) - benchCpuBefore;
            Thread.sleep(500); // let the last commits land before the offsets are read
            Map<String, Long> after = endOffsets(admin);
            Map<String, Long> bytesAfter = logBytes(admin);
            long rss = target.rssKb();

            System.out.printf("%n=== Order benchmark: %d %s orders, %d in flight, rate %s, %s%n", options.orders(),
                    options.flow(), options.concurrency(), options.rate() > 0 ? options.rate() + "/s" : "open",
                    target.describe());
            measured.printRates();
            System.out.println("POST /api/v1/orders       " + percentiles(measured.posts));
            System.out.println("POST -> completed         " + percentiles(measured.completed));
            System.out.printf("GET /api/v1/orders/:id    %s (sampled at %d/s)%n", percentiles(measured.gets),
                    options.getRate());
            System.out.printf("GET /api/v1/orders/:id    %s (after the run, one at a time: the read path alone)%n",
                    percentiles(idleReads(http, measured.ids, 300)));
            System.out.println("over time (by when the order or read started):");
            measured.timeline().forEach(line -> System.out.println("  " + line));
            if (measured.hops != null) {
                System.out.println("POST -> completed by hop (when a read_uncommitted reader first saw each record):");
                long window = TimeUnit.SECONDS.toNanos(TIMELINE_WINDOW_SECONDS);
                measured.hops.report(measured.ids).forEach(line -> System.out.println("  " + line));
                measured.hops.byWindow(measured.ids, measured.started, window)
                        .forEach(line -> System.out.println("  " + line));
            }
            if (options.readsOut() != null) {
                measured.writeReads(Path.of(options.readsOut()));
            }
            if (subscribers != null) {
                subscribers.report(measured.ids, measured.started, measured.lastAccepted, measured.ended,
                        measured.completed.size(), drained).forEach(System.out::println);
                subscribers.close();
            }
            int orders = Math.max(1, measured.posts.size());
            long total = 0;
            Map<String, Long> perTopic = new LinkedHashMap<>();
            for (Map.Entry<String, Long> e : after.entrySet()) {
                long delta = e.getValue() - before.getOrDefault(e.getKey(), 0L);
                if (delta > 0) {
                    total += delta;
                    perTopic.merge(topicOf(e.getKey()), delta, Long::sum);
                }
            }
            System.out.printf("Kafka records per order:  %.1f (offsets incl. transaction markers; %s)%n",
                    (double) total / orders, perTopic.entrySet().stream()
                            .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                            .map(e -> String.format("%s %.1f", e.getKey(), (double) e.getValue() / orders))
                            .collect(Collectors.joining(", ")));
            System.out.println("Kafka records per order by topic (records, bytes on disk, bytes per record):");
            perTopic.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).forEach(e -> {
                long bytes = bytesAfter.getOrDefault(e.getKey(), 0L) - bytesBefore.getOrDefault(e.getKey(), 0L);
                System.out.printf("  %-55s %6.2f  %8.0f B  %6.0f B%n", e.getKey(), (double) e.getValue() / orders,
                        (double) bytes / orders, (double) bytes / e.getValue());
            });
            System.out.printf("system RSS:               %s before the run, %s after%n", mb(rssBefore), mb(rss));
            if (cpu >= 0) {
                System.out.printf("system CPU:               %.2f ms per order (%.2f cores busy on average; so %.0f "
                                + "orders/s would fill %d cores); the benchmark itself used %.2f ms per order%n",
                        1000 * cpu / orders, cpu / measured.seconds(), Runtime.getRuntime().availableProcessors()
                                * orders / cpu, Runtime.getRuntime().availableProcessors(), 1000 * benchCpu / orders);
                System.out.printf("system CPU by part:       %s%n", ThreadCpu.shares(partsBefore, partsAfter, orders));
            }
            if (options.thenRate() > 0 && options.thenSeconds() > 0) {
                // the offered load falls: starts are accepted again once the services are back under the backlog
                // bound, and the accepted ones complete as fast as before the overload
                Phase then = new Phase(options, options.thenRate(), http, completions,
                        (int) Math.ceil(options.thenRate() * options.thenSeconds()), "then");
                then.drive();
                System.out.printf("%n=== Then %s orders/s for %d s%n", options.thenRate(), options.thenSeconds());
                then.printRates();
                System.out.println("POST -> completed         " + percentiles(then.completed));
                System.out.println("over time (by when the order or read started):");
                then.timeline().forEach(line -> System.out.println("  " + line));
            }
            double ordersPerSecond = measured.completed.size() / measured.seconds();
            double recordsPerSecond = ordersPerSecond * total / orders;
            if (options.eosRecords() > 0) {
                double eos = EosPassThrough.measure(target.kafka(), options.eosRecords());
                System.out.printf("Kafka EOS pass-through:   %.0f records/s (exactly_once_v2 read-store-write, %d "
                        + "records)%n", eos, options.eosRecords());
                System.out.printf("ratio:                    the system moved %.0f records/s = %.1f%% of it; "
                                + "%.1f orders/s = 1 order per %.0f pass-through records%n", recordsPerSecond,
                        100 * recordsPerSecond / eos, ordersPerSecond, eos / Math.max(ordersPerSecond, 1e-9));
            }
        }
    }

    /** One batch of orders driven at a rate and concurrency, with completions and sampled reads. */
    private static final class Phase {
        final BenchOptions options;
        final double rate;
        final BenchHttp http;
        final Completions completions;
        final int orders;
        final String name;
        /*
         * Every sample and order id of the run, appended under a lock. Copy-on-write lists copied their whole array
         * on every add: about 90 MB/s of garbage at 500 orders/s, and the benchmark's own collection pauses (7 ms
         * median) landed in the reads it timed.
         */
        final List<Sample> posts = Collections.synchronizedList(new ArrayList<>());
        final List<Sample> completed = Collections.synchronizedList(new ArrayList<>());
        final List<Sample> gets = Collections.synchronizedList(new ArrayList<>());
        final Map<String, Integer> failures = new ConcurrentHashMap<>();
        final AtomicInteger otherEnd = new AtomicInteger();
        /** Starts the gateway refused because the services were behind (503, OVERLOAD_BACKLOG). */
        final AtomicInteger refused = new AtomicInteger();
        /** The same refusals, each when it was sent and how long its answer took. */
        final List<Sample> refusals = Collections.synchronizedList(new ArrayList<>());
        final List<String> ids = Collections.synchronizedList(new ArrayList<>());
        /** The system's CPU by part at each window boundary (see {@link #timeline}), when {@link #pid} is set. */
        final List<Map<String, Long>> cpuAtWindows = Collections.synchronizedList(new ArrayList<>());
        /** The system's process, for its CPU over time; 0: not sampled. */
        long pid;
        /** Splits each order into its hops; null: not watched. */
        Hops hops;
        long started;
        long startedWallMillis;
        long lastAccepted;
        long ended;

        Phase(BenchOptions options, double rate, BenchHttp http, Completions completions, int orders, String name) {
            this.options = options;
            this.rate = rate;
            this.http = http;
            this.completions = completions;
            this.orders = orders;
            this.name = name;
        }

        double seconds() {
            return (ended - started) / 1e9;
        }

        double acceptSeconds() {
            return (lastAccepted - started) / 1e9;
        }

        /** The phase's starts accepted and refused, and its orders completed, each with its rate. */
        void printRates() {
            System.out.printf("accepted:  %d in %.1f s = %.1f orders/s; refused (503, the services behind): %d%n",
                    posts.size(), acceptSeconds(), posts.size() / acceptSeconds(), refused.get());
            System.out.printf("completed: %d in %.1f s = %.1f orders/s (other end states %d, failures %s)%n",
                    completed.size(), seconds(), completed.size() / seconds(), otherEnd.get(), failures);
        }

        /**
         * The measured run window by window, by wall-clock start (to lay beside a GC log): orders completed, and the
         * POST, POST -> completed and GET percentiles (p50/p99/max) of what started in the window, and the starts
         * accepted and refused in it when any was refused. A tail that one window holds is a burst; one spread over
         * all windows is the steady state.
         */
        List<String> timeline() {
            Map<Long, List<Sample>> accepts = byWindow(posts);
            Map<Long, List<Sample>> refuses = byWindow(refusals);
            Map<Long, List<Sample>> ends = byWindow(completed);
            Map<Long, List<Sample>> reads = byWindow(gets);
            long windows = Math.max(ends.keySet().stream().mapToLong(Long::longValue).max().orElse(-1),
                    reads.keySet().stream().mapToLong(Long::longValue).max().orElse(-1)) + 1;
            DateTimeFormatter clock = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);
            List<String> lines = new ArrayList<>();
            for (long w = 0; w < windows; w++) {
                String cpu = w + 1 < cpuAtWindows.size() ? "  system " + ThreadCpu.cores(cpuAtWindows.get((int) w),
                        cpuAtWindows.get((int) w + 1), TIMELINE_WINDOW_SECONDS, 6) : "";
                long offset = w * TIMELINE_WINDOW_SECONDS;
                String starts = refuses.isEmpty() ? "" : String.format("  %5d accepted %5d refused",
                        accepts.getOrDefault(w, List.of()).size(), refuses.getOrDefault(w, List.of()).size());
                lines.add(String.format("%s +%3d s  %5d completed%s  POST %s  to completed %s  GET %s%s",
                        clock.format(Instant.ofEpochMilli(startedWallMillis + offset * 1000L)), offset,
                        ends.getOrDefault(w, List.of()).size(), starts,
                        shortPercentiles(accepts.getOrDefault(w, List.of())),
                        shortPercentiles(ends.getOrDefault(w, List.of())),
                        shortPercentiles(reads.getOrDefault(w, List.of())), cpu));
            }
            return lines;
        }

        /** Each sampled read: its start in milliseconds since the epoch and its time in milliseconds, a line each. */
        void writeReads(Path file) throws IOException {
            List<String> lines = new ArrayList<>();
            synchronized (gets) {
                gets.forEach(read -> lines.add(String.format(Locale.ROOT, "%d %.3f",
                        startedWallMillis + read.at() / 1_000_000, read.nanos() / 1e6)));
            }
            Files.write(file, lines);
            System.out.println("sampled reads written to " + file.toAbsolutePath());
        }

        /** Samples by the timeline window they started in. */
        private static Map<Long, List<Sample>> byWindow(List<Sample> samples) {
            long window = TimeUnit.SECONDS.toNanos(TIMELINE_WINDOW_SECONDS);
            return samples.stream().collect(Collectors.groupingBy(s -> s.at() / window));
        }

        void drive() throws Exception {
            Semaphore inFlight = new Semaphore(options.concurrency());
            AtomicInteger done = new AtomicInteger();
            started = System.nanoTime();
            startedWallMillis = System.currentTimeMillis();
            Thread progress = Thread.ofPlatform().daemon().start(() -> {
                int last = 0;
                try {
                    while (true) {
                        Thread.sleep(2000);
                        int now = done.get();
                        System.out.printf("  %s: %d/%d ended, %.0f/s over the last 2 s, %d in flight%n", name, now,
                                orders, (now - last) / 2.0, options.concurrency() - inFlight.availablePermits());
                        last = now;
                    }
                } catch (InterruptedException ignored) {
                    // finished
                }
            });
            AtomicLong readsRunning = new AtomicLong(1);
            Thread reader = options.getRate() > 0
                    ? Thread.ofPlatform().daemon().start(() -> sampleReads(readsRunning)) : null;
            Thread cpuSampler = pid > 0 ? Thread.ofPlatform().daemon().start(this::sampleCpu) : null;
            long interval = rate > 0 ? (long) (1e9 / rate) : 0;
            try (ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < orders; i++) {
                    if (interval > 0) {
                        long due = started + i * interval;
                        long wait = due - System.nanoTime();
                        if (wait > 0) {
                            TimeUnit.NANOSECONDS.sleep(wait);
                        }
                    }
                    inFlight.acquire();
                    int n = i;
                    workers.submit(() -> {
                        try {
                            oneOrder(n);
                        } catch (Exception e) {
                            failures.merge(e.getClass().getSimpleName() + ": " + e.getMessage(), 1, Integer::sum);
                        } finally {
                            done.incrementAndGet();
                            inFlight.release();
                        }
                    });
                }
            }
            ended = System.nanoTime();
            readsRunning.set(0);
            progress.interrupt();
            if (cpuSampler != null) {
                cpuSampler.interrupt();
                cpuSampler.join();
            }
            if (reader != null) {
                reader.join();
            }
        }

        private void oneOrder(int n) throws Exception {
            String body = Json.write(Map.of("flowId", options.flow(), "input", Map.of(
                    "type", options.flow(), "customerId", "cus_bench_" + (n % 50), "currency", "USD",
                    "lines", List.of(Map.of("sku", "WIDGET-1", "qty", 1 + n % 3)),
                    "meta", Map.of("shipTo", "1 Main Street, Springfield"))));
            long start = System.nanoTime();
            BenchHttp.Response created = http.post("/api/v1/orders", body);
            long accepted = System.nanoTime();
            if (created.status() == 503 && created.body().contains("The service is busy")) {
                refused.incrementAndGet();
                refusals.add(new Sample(start - started, accepted - start));
                return;
            }
            if (created.status() != 201) {
                throw new IllegalStateException("POST answered " + created.status() + " " + created.body());
            }
            posts.add(new Sample(start - started, accepted - start));
            synchronized (this) {
                lastAccepted = Math.max(lastAccepted, accepted);
            }
            String orderId = Json.MAPPER.readTree(created.body()).get("orderId").asString();
            ids.add(orderId);
            CompletableFuture<Ended> end = completions.completion(orderId);
            Ended ended = end.get(options.orderTimeoutSeconds(), TimeUnit.SECONDS);
            completions.forget(orderId);
            if (ended.status() == OrderStatus.COMPLETED) {
                completed.add(new Sample(start - started, ended.at() - start));
                if (hops != null) {
                    hops.order(orderId, start, accepted, ended.at());
                }
            } else {
                otherEnd.incrementAndGet();
            }
        }

        /** The system's CPU by part at each timeline window boundary, from the start until interrupted. */
        private void sampleCpu() {
            long window = TimeUnit.SECONDS.toNanos(TIMELINE_WINDOW_SECONDS);
            try {
                for (int w = 0; ; w++) {
                    long wait = started + w * window - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    cpuAtWindows.add(ThreadCpu.read(pid));
                }
            } catch (InterruptedException ignored) {
                // the run ended
            }
        }

        /** A client watching orders: reads one of the recent orders {@code getRate} times a second. */
        private void sampleReads(AtomicLong running) {
            long interval = (long) (1e9 / options.getRate());
            long next = System.nanoTime();
            while (running.get() != 0) {
                next += interval;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    try {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                int size = ids.size();
                if (size == 0) {
                    continue;
                }
                String id = ids.get(Math.max(0, size - 1 - ThreadLocalRandom.current().nextInt(Math.min(size, 200))));
                try {
                    long start = System.nanoTime();
                    BenchHttp.Response read = http.get("/api/v1/orders/" + id);
                    long took = System.nanoTime() - start;
                    if (read.status() == 200) {
                        gets.add(new Sample(start - started, took));
                    } else {
                        failures.merge("GET " + read.status(), 1, Integer::sum);
                    }
                } catch (RuntimeException e) {
                    failures.merge("GET " + e.getClass().getSimpleName(), 1, Integer::sum);
                }
            }
        }
    }

    /** {@code count} reads of measured orders, one after the other, on the idle system. */
    private static List<Sample> idleReads(BenchHttp http, List<String> ids, int count) {
        List<Sample> took = new ArrayList<>();
        for (int i = 0; i < count && !ids.isEmpty(); i++) {
            String id = ids.get(ThreadLocalRandom.current().nextInt(ids.size()));
            long start = System.nanoTime();
            BenchHttp.Response read = http.get("/api/v1/orders/" + id);
            if (read.status() == 200) {
                took.add(new Sample(0, System.nanoTime() - start));
            }
        }
        return took;
    }

    record Ended(OrderStatus status, long at) {
    }

    /** One measured request or order: when it started (nanoseconds after its phase started) and how long it took. */
    record Sample(long at, long nanos) {
    }

    /** Watches {@code order-updates} from its end and completes a future per order when the order ends. */
    private static final class Completions implements AutoCloseable {
        private final Map<String, CompletableFuture<Ended>> waiting = new ConcurrentHashMap<>();
        private final KafkaConsumer<String, OrderUpdate> consumer;
        private final Thread thread;
        private volatile boolean running = true;

        Completions(String bootstrapServers) {
            consumer = new KafkaConsumer<>(consumerConfig(bootstrapServers, "read_committed"),
                    Topics.ORDER_UPDATES.keySerde().deserializer(), Topics.ORDER_UPDATES.valueSerde().deserializer());
            readFromEnd(consumer, List.of(Topics.ORDER_UPDATES.name()));
            thread = Thread.ofPlatform().name("bench-order-updates").daemon().start(this::poll);
        }

        CompletableFuture<Ended> completion(String orderId) {
            return waiting.computeIfAbsent(orderId, ignored -> new CompletableFuture<>());
        }

        void forget(String orderId) {
            waiting.remove(orderId);
        }

        private void poll() {
            while (running) {
                for (ConsumerRecord<String, OrderUpdate> record : consumer.poll(Duration.ofMillis(100))) {
                    if (record.value() != null && ENDED.contains(record.value().status())) {
                        completion(record.key()).complete(new Ended(record.value().status(), System.nanoTime()));
                    }
                }
            }
            consumer.close();
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            thread.join();
        }
    }

    /** End offsets of every partition of every topic but the benchmark's own, by "topic-partition". */
    private static Map<String, Long> endOffsets(Admin admin) throws Exception {
        Set<String> names = admin.listTopics().names().get().stream()
                .filter(name -> !name.startsWith(EosPassThrough.PREFIX)).collect(Collectors.toSet());
        Map<String, TopicDescription> topics = admin.describeTopics(names).allTopicNames().get();
        Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
        topics.values().forEach(t -> t.partitions().forEach(
                p -> specs.put(new TopicPartition(t.name(), p.partition()), OffsetSpec.latest())));
        Map<String, Long> offsets = new HashMap<>();
        admin.listOffsets(specs).all().get().forEach((tp, info) -> offsets.put(tp.toString(), info.offset()));
        return offsets;
    }

    /**
     * Bytes on disk of every topic, summed over its partitions' log segments (batch headers, record headers and
     * transaction markers included), by topic. A compacted topic's cleaner does not touch the active segment, so
     * over a run its growth is what the run wrote.
     */
    private static Map<String, Long> logBytes(Admin admin) throws Exception {
        List<Integer> brokers = admin.describeCluster().nodes().get().stream().map(Node::id).toList();
        Map<String, Long> bytes = new HashMap<>();
        admin.describeLogDirs(brokers).allDescriptions().get().values().forEach(dirs -> dirs.values().forEach(
                dir -> dir.replicaInfos().forEach((partition, replica) ->
                        bytes.merge(partition.topic(), replica.size(), Long::sum))));
        return bytes;
    }

    private static String topicOf(String topicPartition) {
        return topicPartition.substring(0, topicPartition.lastIndexOf('-'));
    }

    private static String mb(long kb) {
        return kb < 0 ? "unknown" : (kb >> 10) + " MB";
    }

    static long rssKb(Path status) {
        try {
            return Files.readAllLines(status).stream().filter(line -> line.startsWith("VmRSS:")).findFirst()
                    .map(line -> Long.parseLong(line.substring(6).replace("kB", "").strip())).orElse(-1L);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    static String percentiles(List<Sample> samples) {
        long[] sorted = sortedNanos(samples);
        if (sorted.length == 0) {
            return "no samples";
        }
        return String.format("n=%d p50=%.1f ms p95=%.1f ms p99=%.1f ms max=%.1f ms", sorted.length,
                at(sorted, 0.50), at(sorted, 0.95), at(sorted, 0.99), sorted[sorted.length - 1] / 1e6);
    }

    /** p50 / p99 / max in milliseconds, for the over-time lines. */
    static String shortPercentiles(List<Sample> samples) {
        long[] sorted = sortedNanos(samples);
        return sorted.length == 0 ? String.format("%-23s", "-")
                : String.format("%6.1f/%6.1f/%6.1f ms", at(sorted, 0.50), at(sorted, 0.99),
                        sorted[sorted.length - 1] / 1e6);
    }

    private static long[] sortedNanos(List<Sample> samples) {
        return samples.stream().mapToLong(Sample::nanos).sorted().toArray();
    }

    /**
     * A benchmark reader's settings: a short fetch wait, and the services' socket buffers (a fixed 64 KB receive
     * buffer dropped segments over loopback, and each cost 200 ms; see {@link SocketBuffers}).
     */
    static Map<String, Object> consumerConfig(String bootstrapServers, String isolationLevel) {
        Map<String, Object> config = new HashMap<>(SocketBuffers.client());
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolationLevel);
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
        return config;
    }

    /**
     * Assigns the consumer every partition of the topics and moves it to their ends now, so that it reads only what
     * is written from here on.
     */
    static void readFromEnd(KafkaConsumer<?, ?> consumer, List<String> topics) {
        List<TopicPartition> partitions = topics.stream().flatMap(topic -> consumer.partitionsFor(topic).stream())
                .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
    }

    /** The quantile of ascending nanoseconds, in milliseconds. */
    static double at(long[] sorted, double quantile) {
        return sorted[(int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1)] / 1e6;
    }
}
