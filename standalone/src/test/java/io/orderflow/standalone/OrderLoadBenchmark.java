package io.orderflow.standalone;

import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.json.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import io.orderflow.schemas.events.OrderUpdate;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.topics.Topics;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * The order benchmark, by hand only: it measures and prints, and asserts nothing about speed.
 *
 * <pre>
 * ./mvnw -B -q -DskipTests install
 * ./mvnw -B -pl standalone test -Dtest=OrderLoadBenchmark -Dorderflow.bench=true \
 *     [-Dorderflow.bench.orders=2000] [-Dorderflow.bench.concurrency=32] [-Dorderflow.bench.url=http://localhost:8080]
 * </pre>
 *
 * Without {@code orderflow.bench.url} it starts the standalone system in this JVM on its in-process broker. It starts
 * {@code orders} storefront orders (the skeleton flow: pricing, tax, charge, reserve, ship, invoice, end) with at most
 * {@code concurrency} orders in flight. Completion is seen on {@code order-updates} (the public notice topic), not by
 * polling, so the measurement adds no load of its own; each order is read once over HTTP when it has completed.
 * It prints orders/s to completion and latency percentiles of {@code POST /api/v1/orders},
 * {@code GET /api/v1/orders/:id} and POST to {@code completed}. Against a running system, pass its Kafka with
 * {@code -Dorderflow.bench.kafka=localhost:9092} (the default) and read its memory with {@code ps}.
 */
@EnabledIfSystemProperty(named = "orderflow.bench", matches = "true")
class OrderLoadBenchmark {

    private static final Duration ORDER_TIMEOUT = Duration.ofMinutes(2);

    @Test
    void ordersPerSecondAndLatencies() throws Exception {
        int orders = Integer.getInteger("orderflow.bench.orders", 2000);
        int concurrency = Integer.getInteger("orderflow.bench.concurrency", 32);
        String url = System.getProperty("orderflow.bench.url");
        StandaloneSystem system = url == null ? StandaloneSystem.start(new StandaloneSettings(0,
                TestKafka.uniqueStateDir("order-benchmark"), Optional.empty(), 0)) : null;
        String base = url != null ? url : "http://localhost:" + system.gatewayPort();
        String kafka = url != null ? System.getProperty("orderflow.bench.kafka", "localhost:9092")
                : system.bootstrapServers();
        try (Completions completions = new Completions(kafka)) {
            run(base, completions, Math.min(200, orders), concurrency, false); // warm-up: JIT, connections, partitions
            run(base, completions, orders, concurrency, true);
        } finally {
            if (system != null) {
                system.close();
            }
        }
    }

    /** Watches {@code order-updates} from its end and completes a future per order when it reaches completed. */
    private static final class Completions implements AutoCloseable {

        private final Map<String, CompletableFuture<Long>> waiting = new ConcurrentHashMap<>();
        private final KafkaConsumer<String, OrderUpdate> consumer;
        private final Thread thread;
        private volatile boolean running = true;

        Completions(String bootstrapServers) {
            consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                    ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                    ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 20),
                    Topics.ORDER_UPDATES.keySerde().deserializer(), Topics.ORDER_UPDATES.valueSerde().deserializer());
            List<TopicPartition> partitions = consumer.partitionsFor(Topics.ORDER_UPDATES.name()).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position);
            thread = Thread.ofPlatform().name("bench-order-updates").start(this::poll);
        }

        CompletableFuture<Long> completion(String orderId) {
            return waiting.computeIfAbsent(orderId, ignored -> new CompletableFuture<>());
        }

        private void poll() {
            while (running) {
                for (ConsumerRecord<String, OrderUpdate> record : consumer.poll(Duration.ofMillis(100))) {
                    if (record.value() != null && record.value().status() == OrderStatus.COMPLETED) {
                        completion(record.key()).complete(System.nanoTime());
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

    private static void run(String base, Completions completions, int orders, int concurrency, boolean report)
            throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .executor(Executors.newFixedThreadPool(4)).build();
        List<Long> posts = new ArrayList<>();
        List<Long> gets = new ArrayList<>();
        List<Long> toCompleted = new ArrayList<>();
        Map<String, Integer> failures = new ConcurrentHashMap<>();
        Semaphore inFlight = new Semaphore(concurrency);
        long started = System.nanoTime();
        try (ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i < orders; i++) {
                inFlight.acquire();
                int n = i;
                running.add(workers.submit(() -> {
                    try {
                        oneOrder(http, base, completions, n, posts, gets, toCompleted);
                    } catch (Exception e) {
                        failures.merge(e.getClass().getSimpleName() + ": " + e.getMessage(), 1, Integer::sum);
                    } finally {
                        inFlight.release();
                    }
                    return null;
                }));
            }
            for (Future<?> future : running) {
                future.get();
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        if (!report) {
            return;
        }
        Runtime runtime = Runtime.getRuntime();
        System.out.printf("%n=== Order benchmark: %d storefront orders, %d in flight, %s%n", orders, concurrency, base);
        System.out.printf("completed: %d in %.1f s = %.1f orders/s; failures: %s%n", toCompleted.size(), seconds,
                toCompleted.size() / seconds, failures);
        System.out.println("POST /api/v1/orders      " + percentiles(posts));
        System.out.println("GET  /api/v1/orders/:id  " + percentiles(gets));
        System.out.println("POST -> completed        " + percentiles(toCompleted));
        System.out.printf("this JVM: resident %s, heap used %d MB of %d MB committed%n", residentMemory(),
                (runtime.totalMemory() - runtime.freeMemory()) >> 20, runtime.totalMemory() >> 20);
    }

    private static void oneOrder(HttpClient http, String base, Completions completions, int n, List<Long> posts,
                                 List<Long> gets, List<Long> toCompleted) throws Exception {
        String body = Json.write(Map.of("flowId", "storefront_order", "input", Map.of(
                "type", "storefront_order", "customerId", "cus_bench_" + (n % 50), "currency", "USD",
                "lines", List.of(Map.of("sku", "WIDGET-1", "qty", 1 + n % 3)),
                "meta", Map.of("shipTo", "1 Main Street, Springfield"))));
        long start = System.nanoTime();
        HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/orders"))
                .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        record(posts, System.nanoTime() - start);
        if (created.statusCode() != 201) {
            throw new IllegalStateException("POST answered " + created.statusCode() + " " + created.body());
        }
        String orderId = Json.MAPPER.readTree(created.body()).get("orderId").asString();
        long completed = completions.completion(orderId).get(ORDER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        record(toCompleted, completed - start);
        long before = System.nanoTime();
        HttpResponse<String> read = http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/orders/" + orderId))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        record(gets, System.nanoTime() - before);
        String status = Json.MAPPER.readTree(read.body()).get("status").asString();
        if (read.statusCode() != 200 || !status.equals("completed")) {
            throw new IllegalStateException("GET answered " + read.statusCode() + " with status " + status);
        }
    }

    private static void record(List<Long> samples, long nanos) {
        synchronized (samples) {
            samples.add(nanos);
        }
    }

    private static String percentiles(List<Long> samples) {
        long[] sorted;
        synchronized (samples) {
            sorted = samples.stream().mapToLong(Long::longValue).toArray();
        }
        Arrays.sort(sorted);
        if (sorted.length == 0) {
            return "no samples";
        }
        return String.format("n=%d p50=%.1f ms p90=%.1f ms p99=%.1f ms max=%.1f ms", sorted.length,
                at(sorted, 0.50), at(sorted, 0.90), at(sorted, 0.99), sorted[sorted.length - 1] / 1e6);
    }

    private static double at(long[] sorted, double quantile) {
        return sorted[(int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1)] / 1e6;
    }

    private static String residentMemory() {
        try {
            return java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status")).stream()
                    .filter(line -> line.startsWith("VmRSS:")).findFirst()
                    .map(line -> line.substring(6).strip()).orElse("unknown");
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }
}
