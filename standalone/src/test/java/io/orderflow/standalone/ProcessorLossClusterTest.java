package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.dispatcher.WebhookDispatcherApplication;
import io.orderflow.gateway.GatewayApplication;
import io.orderflow.kafka.embedded.EmbeddedKafkaBroker;
import io.orderflow.kafka.TopicProvisioner;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.processor.OrderProcessorApplication;
import io.orderflow.runner.FlowRunnerApplication;
import io.orderflow.schemas.json.Json;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.http.client.ReactorResourceFactory;
import reactor.netty.resources.LoopResources;
import tools.jackson.databind.JsonNode;

/**
 * Two order-processor instances (one Kafka Streams group, {@code NUM_STANDBY_REPLICAS} 1), each in a JVM of its own,
 * with the flow-runner, the webhook-dispatcher and a gateway whose {@code PROCESSOR_URLS} lists both in this JVM, all
 * against one in-process broker. Under a steady load of new orders and reads, one processor JVM is killed (SIGKILL, as
 * {@code kill -9}): every order started completes, no node runs twice, and no read through the gateway answers
 * anything but 200, or 503 with {@code Retry-After}. The test logs the figures docs/operations.md reports: the
 * longest time no order completed, the slowest order from its first send to its completion, and the last 503.
 * {@code -Dfailover.standbys=0} runs it without standby tasks, for comparison.
 */
@Tag("fault") // the long fault and load runs: ./mvnw -B verify -Pfaults
class ProcessorLossClusterTest {

    private static final Logger log = LoggerFactory.getLogger(ProcessorLossClusterTest.class);
    private static final int PARTITIONS = 6;
    private static final String TOKEN = "failover-internal-token";
    private static final Duration BEFORE_KILL = Duration.ofSeconds(15);
    private static final Duration AFTER_KILL = Duration.ofSeconds(30);
    private static final Duration ORDER_EVERY = Duration.ofMillis(200);
    private static final Duration READ_EVERY = Duration.ofMillis(100);
    private static final String BODY = """
            {"flowId":"storefront_order","input":{"type":"storefront_order","customerId":"cus_failover",
             "currency":"USD","lines":[{"sku":"TSHIRT-RED-M","name":"T-shirt","qty":2,"unitPrice":19.5}],
             "meta":{"shipTo":"1 Main Street"}}}""";
    /** Spring Security is on this classpath for the gateway; the other services run without it, as alone. */
    static final String NO_SECURITY = "--spring.autoconfigure.exclude="
            + "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration,"
            + "org.springframework.boot.security.autoconfigure.ReactiveUserDetailsServiceAutoConfiguration,"
            + "org.springframework.boot.security.autoconfigure.web.reactive.ReactiveWebSecurityAutoConfiguration,"
            + "org.springframework.boot.security.autoconfigure.actuate.web.reactive."
            + "ReactiveManagementWebSecurityAutoConfiguration";

    private static final Duration START_WITHIN = Duration.ofMinutes(5);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<Process> processes = new ArrayList<>();
    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();
    /** When a start or a read last answered 503 (epoch milliseconds). */
    private final AtomicLong last503 = new AtomicLong();
    private EmbeddedKafkaBroker broker;

    @AfterEach
    void stop() {
        for (ConfigurableApplicationContext context : contexts.reversed()) {
            context.close();
        }
        processes.forEach(Process::destroyForcibly);
        for (Process process : processes) {
            process.onExit().join();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void a_processor_killed_under_load_hands_its_orders_to_the_other() throws Exception {
        int standbys = Integer.getInteger("failover.standbys", 1);
        Path data = TestKafka.uniqueStateDir("processor-loss");
        Path logs = Files.createDirectories(Path.of("target", "processor-loss"));
        broker = EmbeddedKafkaBroker.start(data, 0);
        TopicProvisioner.createMissing(broker.bootstrapServers(), PARTITIONS, (short) 1);
        int portA = freePort();
        int portB = freePort();
        Map<String, String> common = Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers(),
                "INTERNAL_TOKEN", TOKEN, "TOPIC_PARTITIONS", String.valueOf(PARTITIONS), "AI_MODE", "mock");
        Process processorA = launch(logs, "processor-a", OrderProcessorApplication.class, common, Map.of(
                "PORT", String.valueOf(portA), "DATA_DIR", data.resolve("a").toString(), "INSTANCE_ID", "processor-a",
                "ADVERTISED_HOST", "127.0.0.1", "NUM_STANDBY_REPLICAS", String.valueOf(standbys)), NO_SECURITY);
        launch(logs, "processor-b", OrderProcessorApplication.class, common, Map.of(
                "PORT", String.valueOf(portB), "DATA_DIR", data.resolve("b").toString(), "INSTANCE_ID", "processor-b",
                "ADVERTISED_HOST", "127.0.0.1", "NUM_STANDBY_REPLICAS", String.valueOf(standbys)), NO_SECURITY);
        String[] shared = {"--orderflow.kafka.bootstrap-servers=" + broker.bootstrapServers(),
                "--orderflow.internal.token=" + TOKEN, "--orderflow.data-dir=" + data.resolve("here")};
        startHere("flow-runner", FlowRunnerApplication.class, shared, "--spring.main.web-application-type=none",
                "--orderflow.kafka.instance-id=runner", NO_SECURITY);
        int dispatcherPort = startHere("webhook-dispatcher", WebhookDispatcherApplication.class, shared,
                "--server.port=0", "--orderflow.dispatcher.topic-partitions=" + PARTITIONS, NO_SECURITY);
        int gatewayPort = startHere("gateway", GatewayApplication.class, shared, "--server.port=0",
                "--orderflow.gateway.processor-url=http://127.0.0.1:" + portA + ",http://127.0.0.1:" + portB,
                "--orderflow.gateway.dispatcher-url=http://127.0.0.1:" + dispatcherPort,
                "--orderflow.intake.smtp-port=-1", "--orderflow.chat.mode=mock");
        String base = "http://localhost:" + gatewayPort;
        await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions().until(() ->
                ready("http://127.0.0.1:" + portA) && ready("http://127.0.0.1:" + portB)
                        && get(base + "/health").statusCode() == 200);
        String first = start(base, "failover-warm-up", new ConcurrentHashMap<>());
        await().atMost(Duration.ofMinutes(1)).ignoreExceptions().until(() -> "completed".equals(status(base, first)));

        Map<Integer, Integer> postStatuses = new ConcurrentHashMap<>();
        Map<Integer, Integer> readStatuses = new ConcurrentHashMap<>();
        List<String> readsWithoutRetryAfter = new CopyOnWriteArrayList<>();
        Map<String, String> orderByKey = new ConcurrentHashMap<>();
        Map<String, Long> sentAt = new ConcurrentHashMap<>();
        List<Future<?>> posts = new ArrayList<>();
        AtomicBoolean loading = new AtomicBoolean(true);
        Instant killedAt;
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<?> reads = clients.submit(() -> readWhileLoading(base, orderByKey, loading, readStatuses,
                    readsWithoutRetryAfter));
            Instant loadStart = Instant.now();
            Instant killAt = loadStart.plus(BEFORE_KILL);
            Instant loadEnd = killAt.plus(AFTER_KILL);
            killedAt = null;
            for (int i = 0; Instant.now().isBefore(loadEnd); i++) {
                String key = "failover-" + i;
                sentAt.put(key, System.currentTimeMillis());
                posts.add(clients.submit(() -> orderByKey.put(key, start(base, key, postStatuses))));
                if (killedAt == null && !Instant.now().isBefore(killAt)) {
                    processorA.destroyForcibly();
                    killedAt = Instant.now();
                    log.info("Killed processor-a (pid {}) at {}", processorA.pid(), killedAt);
                }
                Thread.sleep(ORDER_EVERY);
            }
            try {
                for (Future<?> post : posts) {
                    post.get();
                }
            } finally {
                loading.set(false);
            }
            reads.get();
        }
        assertThat(orderByKey).hasSize(posts.size());
        assertThat(orderByKey.values()).doesNotHaveDuplicates();
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                .untilAsserted(() -> {
                for (String id : orderByKey.values()) {
                    assertThat(status(base, id)).as(id).isEqualTo("completed");
                }
            });
        List<Long> completions = new ArrayList<>();
        long slowest = 0;
        for (Map.Entry<String, String> started : orderByKey.entrySet()) {
            String id = started.getValue();
            JsonNode order = read(base, id);
            JsonNode nodes = order.path("nodes");
            assertThat(nodes.isEmpty()).as(id).isFalse();
            nodes.properties().forEach(node -> assertThat(node.getValue().path("runs").size())
                    .as(id + " " + node.getKey()).isLessThanOrEqualTo(1));
            completions.add(completedAt(order));
            slowest = Math.max(slowest, completedAt(order) - sentAt.get(started.getKey()));
        }
        completions.sort(null);
        long kill = killedAt.toEpochMilli();
        log.info("Standbys {}: {} orders; POST answers {}; read answers {}; longest time without a completion {} ms "
                        + "(killed at {}); the first completion after the kill {} ms after it; the slowest order "
                        + "completed {} ms after it was first sent; the last 503 {} ms after the kill", standbys,
                orderByKey.size(), postStatuses, readStatuses, longestGap(completions), killedAt,
                completions.stream().filter(at -> at >= kill).findFirst().orElseThrow() - kill, slowest,
                last503.get() - kill);
        assertThat(readStatuses.keySet()).as("read answers (0: none within 30 s)").isSubsetOf(0, 200, 503);
        assertThat(readsWithoutRetryAfter).as("503s without Retry-After").isEmpty();
        assertThat(postStatuses.keySet()).as("start answers").isSubsetOf(200, 201, 503);
    }

    /** Reads known orders through the gateway until the load ends, counting the answers by status. */
    private Void readWhileLoading(String base, Map<String, String> orderByKey, AtomicBoolean loading,
                                  Map<Integer, Integer> statuses, List<String> without) throws Exception {
        while (loading.get()) {
            List<String> ids = List.copyOf(orderByKey.values());
            if (!ids.isEmpty()) {
                String id = ids.get(ThreadLocalRandom.current().nextInt(ids.size()));
                HttpResponse<String> response;
                try {
                    response = get(base + "/api/v1/orders/" + id);
                } catch (HttpTimeoutException e) {
                    // no answer is not a wrong answer: counted, and shown in the figures, as status 0
                    statuses.merge(0, 1, Integer::sum);
                    continue;
                }
                statuses.merge(response.statusCode(), 1, Integer::sum);
                if (response.statusCode() == 503) {
                    last503.set(System.currentTimeMillis());
                    if (response.headers().firstValue("Retry-After").isEmpty()) {
                        without.add(id + " " + response.body());
                    }
                }
            }
            Thread.sleep(READ_EVERY);
        }
        return null;
    }

    /**
     * Starts an order with an idempotency key, as a client would: a 503, or no answer within 30 s, is sent again with
     * the same key.
     */
    private String start(String base, String key, Map<Integer, Integer> statuses) throws Exception {
        // a start still refused after minutes fails the test rather than holding the build
        long deadline = System.nanoTime() + START_WITHIN.toNanos();
        while (true) {
            assertThat(System.nanoTime()).as("start of " + key + " still refused").isLessThan(deadline);
            HttpResponse<String> response;
            try {
                response = http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/orders"))
                        .header("content-type", "application/json").header("Idempotency-Key", key)
                        .timeout(Duration.ofSeconds(30))
                        .POST(HttpRequest.BodyPublishers.ofString(BODY)).build(),
                        HttpResponse.BodyHandlers.ofString());
            } catch (HttpTimeoutException e) {
                log.warn("No answer within 30 s to the start of {}; sending it again", key);
                continue;
            }
            statuses.merge(response.statusCode(), 1, Integer::sum);
            if (response.statusCode() == 201 || response.statusCode() == 200) {
                return Json.MAPPER.readTree(response.body()).path("orderId").asString();
            }
            assertThat(response.statusCode()).as(response.body()).isEqualTo(503);
            last503.set(System.currentTimeMillis());
            Thread.sleep(500);
        }
    }

    /** The longest interval between two consecutive completions, in milliseconds. */
    private static long longestGap(List<Long> completions) {
        long longest = 0;
        for (int i = 1; i < completions.size(); i++) {
            longest = Math.max(longest, completions.get(i) - completions.get(i - 1));
        }
        return longest;
    }

    /** When the order completed: the end of its last node (epoch milliseconds). */
    private static long completedAt(JsonNode order) {
        long last = 0;
        for (JsonNode node : order.path("nodes")) {
            JsonNode ended = node.path("endedAt");
            long at = ended.isNumber() ? ended.asLong() : ended.isString()
                    ? Instant.parse(ended.asString()).toEpochMilli() : 0;
            last = Math.max(last, at);
        }
        return last;
    }

    private boolean ready(String processor) throws Exception {
        return get(processor + "/actuator/health/readiness").statusCode() == 200;
    }

    private String status(String base, String id) throws Exception {
        return read(base, id).path("status").asString("");
    }

    private JsonNode read(String base, String id) throws Exception {
        HttpResponse<String> response = get(base + "/api/v1/orders/" + id);
        return response.statusCode() == 200 ? Json.MAPPER.readTree(response.body()) : Json.object();
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Starts a service's main class in a JVM of its own on this test's class path, its output in {@code logs}; the
     * environment is this one's with {@code common} and {@code own} added.
     */
    private Process launch(Path logs, String name, Class<?> main, Map<String, String> common, Map<String, String> own,
                           String... args) throws IOException {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", classPath, main.getName()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(logs.resolve(name + ".log").toFile());
        builder.environment().putAll(common);
        builder.environment().putAll(own);
        Process process = builder.start();
        processes.add(process);
        return process;
    }

    /**
     * Starts a service in this JVM, as the standalone system does, with event loops of its own for its web server: the
     * JVM-wide ones would be disposed with it, under the other systems of this test run. Answers its HTTP port.
     */
    private int startHere(String name, Class<?> application, String[] shared, String... args) {
        String[] all = new String[shared.length + args.length];
        System.arraycopy(shared, 0, all, 0, shared.length);
        System.arraycopy(args, 0, all, shared.length, args.length);
        ConfigurableApplicationContext context = new SpringApplicationBuilder(application)
                .properties("spring.config.name=" + name, "spring.application.name=" + name)
                .initializers(ownLoops(name))
                .registerShutdownHook(false)
                .run(all);
        contexts.add(context);
        return context.getEnvironment().getProperty("local.server.port", Integer.class, -1);
    }

    private static ApplicationContextInitializer<ConfigurableApplicationContext> ownLoops(String name) {
        return context -> {
            if (context instanceof GenericApplicationContext generic) {
                generic.registerBean(ReactorResourceFactory.class, () -> {
                    ReactorResourceFactory resources = new ReactorResourceFactory();
                    resources.setUseGlobalResources(false);
                    resources.setLoopResourcesSupplier(() -> LoopResources.create("failover-" + name));
                    return resources;
                });
            }
        };
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
