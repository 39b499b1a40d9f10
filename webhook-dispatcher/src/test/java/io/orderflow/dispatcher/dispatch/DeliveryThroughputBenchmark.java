package io.orderflow.dispatcher.dispatch;

import static org.awaitility.Awaitility.await;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.orderflow.dispatcher.WebhookDispatcherApplication;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.signing.WebhookSignature;
import io.orderflow.schemas.topics.Topics;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

/**
 * How fast the dispatcher works off a backlog, by hand only (it measures and prints; it asserts nothing about speed):
 * {@code ./mvnw -pl webhook-dispatcher -am verify -Dtest=DeliveryThroughputBenchmark -Dorderflow.bench=true
 * -Dsurefire.failIfNoSpecifiedTests=false -Dorderflow.bench.events=40000 -Dorderflow.bench.warmup=10000}, with
 * {@code -Dorderflow.bench.args="--orderflow.dispatcher.connections-per-host=64 ..."} for settings of the dispatcher.
 *
 * <p>Subscribes a receiver to every event, publishes the warm-up events at once and waits for them (JIT,
 * connections), then publishes the measured events at once and times until the receiver has them all: the rate is
 * the dispatcher's with a backlog, not an event source's. The receiver is Reactor Netty on one event loop of its own,
 * answering 200 once a body has arrived and checking every 100th signature, so that it costs the shared cores little.
 * Prints deliveries/s, this JVM's CPU per delivery by part (dispatcher, broker, receiver, ...), the time from each
 * event to its receipt and the deliveries received twice.
 */
@EnabledIfSystemProperty(named = "orderflow.bench", matches = "true")
class DeliveryThroughputBenchmark {

    @Test
    void deliveriesPerSecondToALocalReceiver() throws Exception {
        int events = Integer.getInteger("orderflow.bench.events", 2000);
        int warmup = Integer.getInteger("orderflow.bench.warmup", 0);
        String bootstrap = TestKafka.bootstrapServers();
        List<String> args = new ArrayList<>(List.of("--orderflow.kafka.bootstrap-servers=" + bootstrap,
                "--server.port=0", "--orderflow.dispatcher.topic-replication=1",
                "--orderflow.dispatcher.group-id=dispatcher-bench-" + UUID.randomUUID()));
        String more = System.getProperty("orderflow.bench.args", "");
        if (!more.isBlank()) {
            args.addAll(List.of(more.split(" ")));
        }
        try (ConfigurableApplicationContext app = WebhookDispatcherApplication.application()
                .run(args.toArray(String[]::new));
             Receiver receiver = new Receiver();
             KafkaProducer<String, String> producer = new KafkaProducer<>(
                     Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.LINGER_MS_CONFIG, 5),
                     new StringSerializer(), new StringSerializer())) {
            String base = "http://127.0.0.1:" + ((WebServerApplicationContext) app).getWebServer().getPort();
            HttpResponse<String> created = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(base + "/internal/subscriptions"))
                            .POST(HttpRequest.BodyPublishers.ofString("{\"url\": \"" + receiver.url() + "\"}"))
                            .header("content-type", "application/json").build(),
                    HttpResponse.BodyHandlers.ofString());
            receiver.secret = Json.MAPPER.readTree(created.body()).get("secret").asString();

            if (warmup > 0) {
                publish(producer, warmup);
                await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(200))
                        .until(() -> receiver.receipts.size() >= warmup);
            }
            receiver.lags.clear();
            Map<String, Long> cpuBefore = cpuByPart();
            long start = System.nanoTime();
            publish(producer, events);
            await().atMost(Duration.ofMinutes(10)).pollInterval(Duration.ofMillis(50))
                    .until(() -> receiver.receipts.size() >= warmup + events);
            double seconds = (System.nanoTime() - start) / 1e9;
            Map<String, Long> cpu = cpuByPart();
            cpu.replaceAll((part, ticks) -> ticks - cpuBefore.getOrDefault(part, 0L));
            long total = cpu.values().stream().mapToLong(Long::longValue).sum();
            long[] lags = receiver.lags.values().stream().mapToLong(Long::longValue).sorted().toArray();
            StringBuilder parts = new StringBuilder();
            cpu.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                    .forEach(part -> parts.append(String.format("%s %.3f ms, ", part.getKey(),
                            part.getValue() * 10.0 / events)));
            System.out.printf("BENCH %d deliveries in %.2f s = %.0f deliveries/s, %.3f ms CPU each (test JVM: %s);"
                            + " event -> received p50 %d ms, p99 %d ms; duplicates %d; bad signatures %d%n",
                    events, seconds, events / seconds, total * 10.0 / events,
                    parts.substring(0, Math.max(0, parts.length() - 2)), lags[lags.length / 2],
                    lags[(int) Math.ceil(0.99 * lags.length) - 1], receiver.duplicates.get(),
                    receiver.badSignatures.get());
        }
    }

    private static void publish(KafkaProducer<String, String> producer, int events) {
        for (int i = 0; i < events; i++) {
            String orderId = "ord_bench_" + UUID.randomUUID();
            OrderEvent event = new OrderEvent("order.completed", orderId, "end", System.currentTimeMillis(),
                    Json.MAPPER.readTree("{\"order\": {\"id\": \"" + orderId
                            + "\"}, \"outcome\": \"completed\", \"reason\": null}"), null);
            producer.send(new ProducerRecord<>(Topics.ORDER_EVENTS.name(), orderId, Json.write(event)));
        }
        producer.flush();
    }

    private static final Map<String, Pattern> PARTS = Map.of(
            "dispatcher", Pattern.compile("webhook-.*"),
            "broker", Pattern.compile("(data-plane-kafk|group-coordinat|TxnMarkerSender|AddPartitionsTo|executor-.*"
                    + "|kafka-\\d+-.*|quorum-.*|raft-.*|ExpirationReape|kafka-scheduler.*|LogDirFailureHa|share-.*"
                    + "|transaction-.*)"),
            "Kafka clients", Pattern.compile("(kafka-producer-|kafka-coordinat|kafka-admin-cli|consumer_backgr)"),
            "receiver", Pattern.compile("bench-receiver.*"),
            "JIT", Pattern.compile("C[12] CompilerThre.*"),
            "GC", Pattern.compile("(GC Thread.*|G1 .*|G. Conc.*|G. Refine.*|G. Service.*|VM Thread)"));

    /** This JVM's CPU in clock ticks (1/100 s) by part, from each thread's name and {@code /proc} stat. */
    private static Map<String, Long> cpuByPart() throws IOException {
        Map<String, Long> ticks = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String name = Files.readString(task.resolve("comm")).strip();
                    String stat = Files.readString(task.resolve("stat"));
                    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    long used = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime + stime
                    String part = PARTS.entrySet().stream().filter(p -> p.getValue().matcher(name).matches())
                            .map(Map.Entry::getKey).findFirst().orElse("other");
                    ticks.merge(part, used, Long::sum);
                } catch (IOException | RuntimeException gone) {
                    // the thread ended while we looked
                }
            }
        }
        return ticks;
    }

    /** The subscriber: first receipt of each delivery id, its lag from the event, duplicates, checked signatures. */
    private static final class Receiver implements AutoCloseable {

        private final LoopResources loop = LoopResources.create("bench-receiver", 1, true);
        private final Map<String, Boolean> receipts = new ConcurrentHashMap<>();
        private final Map<String, Long> lags = new ConcurrentHashMap<>();
        private final AtomicLong requests = new AtomicLong();
        private final AtomicLong duplicates = new AtomicLong();
        private final AtomicLong badSignatures = new AtomicLong();
        private final DisposableServer server;
        private volatile String secret;

        Receiver() {
            server = HttpServer.create().host("127.0.0.1").port(0).runOn(loop)
                    .handle((request, response) -> request.receive().aggregate().asByteArray()
                            .flatMap(body -> {
                                received(request.requestHeaders().get("x-service-delivery"),
                                        request.requestHeaders().get("x-service-signature"), body);
                                return response.status(HttpResponseStatus.OK).send().then();
                            })
                            .then(Mono.empty()))
                    .bindNow();
        }

        String url() {
            return "http://127.0.0.1:" + server.port() + "/hook";
        }

        private void received(String deliveryId, String signature, byte[] body) {
            long now = System.currentTimeMillis();
            if (requests.incrementAndGet() % 100 == 0 && (signature == null
                    || !WebhookSignature.verifyDelivery(secret, signature, body, Instant.now()).valid())) {
                badSignatures.incrementAndGet();
            }
            if (receipts.putIfAbsent(deliveryId, Boolean.TRUE) != null) {
                duplicates.incrementAndGet();
                return;
            }
            String json = new String(body, StandardCharsets.UTF_8);
            int at = json.indexOf("\"occurredAt\":") + "\"occurredAt\":".length();
            int end = at;
            while (end < json.length() && Character.isDigit(json.charAt(end))) {
                end++;
            }
            lags.put(deliveryId, now - Long.parseLong(json.substring(at, end)));
        }

        @Override
        public void close() {
            server.disposeNow();
            loop.dispose();
        }
    }
}
