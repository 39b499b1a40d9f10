package io.orderflow.dispatcher.dispatch;

import static org.awaitility.Awaitility.await;

import com.sun.management.OperatingSystemMXBean;
import io.orderflow.dispatcher.WebhookDispatcherApplication;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.topics.Topics;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A bounded throughput run, by hand only (it measures and prints; it asserts nothing about speed):
 * {@code ./mvnw -pl webhook-dispatcher test -Dtest=DeliveryThroughputBenchmark -Dorderflow.bench=true
 * -Dorderflow.bench.events=10000 -Dorderflow.bench.warmup=3000}. Publishes the warm-up events at once and waits for
 * them (JIT, connections), then the measured events, and times until the local receiver has them all. Prints
 * deliveries/s, the test JVM's CPU per delivery (the dispatcher, the receiver and, without Docker, the broker: on a
 * shared machine the steadier figure), the time from each event to its receipt and the deliveries received twice.
 */
@EnabledIfSystemProperty(named = "orderflow.bench", matches = "true")
class DeliveryThroughputBenchmark {

    @Test
    void deliveriesPerSecondToALocalReceiver() throws Exception {
        int events = Integer.getInteger("orderflow.bench.events", 2000);
        int warmup = Integer.getInteger("orderflow.bench.warmup", 0);
        String bootstrap = TestKafka.bootstrapServers();
        try (ConfigurableApplicationContext app = WebhookDispatcherApplication.application().run(
                "--orderflow.kafka.bootstrap-servers=" + bootstrap, "--server.port=0",
                "--orderflow.dispatcher.topic-partitions=3", "--orderflow.dispatcher.topic-replication=1",
                "--orderflow.dispatcher.group-id=dispatcher-bench-" + UUID.randomUUID());
             TestReceiver receiver = TestReceiver.answering();
             KafkaProducer<String, String> producer = new KafkaProducer<>(
                     Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.LINGER_MS_CONFIG, 5),
                     new StringSerializer(), new StringSerializer())) {
            String base = "http://127.0.0.1:" + ((WebServerApplicationContext) app).getWebServer().getPort();
            HttpResponse<String> created = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(base + "/internal/subscriptions"))
                            .POST(HttpRequest.BodyPublishers.ofString("{\"url\": \"" + receiver.url() + "\"}"))
                            .header("content-type", "application/json").build(),
                    HttpResponse.BodyHandlers.ofString());
            receiver.verifyWith(Json.MAPPER.readTree(created.body()).get("secret").asString());

            if (warmup > 0) {
                publish(producer, warmup);
                await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(200))
                        .until(() -> receiver.received().size() >= warmup);
            }
            OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            long cpuBefore = os.getProcessCpuTime();
            long start = System.nanoTime();
            publish(producer, events);
            await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(50))
                    .until(() -> receiver.received().size() >= warmup + events);
            double seconds = (System.nanoTime() - start) / 1e9;
            double cpuMs = (os.getProcessCpuTime() - cpuBefore) / 1e6;
            List<TestReceiver.Received> measured = receiver.received().subList(warmup, warmup + events);
            long invalid = measured.stream().filter(r -> !r.signatureValid()).count();
            long[] lags = measured.stream()
                    .mapToLong(r -> r.at().toEpochMilli() - r.body().get("occurredAt").asLong()).sorted().toArray();
            long duplicates = receiver.received().size()
                    - receiver.received().stream().map(TestReceiver.Received::deliveryId).distinct().count();
            System.out.printf("BENCH %d deliveries in %.2f s = %.0f deliveries/s, %.3f ms CPU each (test JVM);"
                            + " event -> received p50 %d ms, p99 %d ms; duplicates %d; invalid signatures %d%n",
                    events, seconds, events / seconds, cpuMs / events, lags[lags.length / 2],
                    lags[(int) Math.ceil(0.99 * lags.length) - 1], duplicates, invalid);
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
}
