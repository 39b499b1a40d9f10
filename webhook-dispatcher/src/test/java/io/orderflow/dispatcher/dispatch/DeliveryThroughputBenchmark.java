package io.orderflow.dispatcher.dispatch;

import static org.awaitility.Awaitility.await;

import io.orderflow.dispatcher.WebhookDispatcherApplication;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.topics.Topics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
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
 * -Dorderflow.bench.events=2000}. Publishes the events at once and times until the local receiver has them all.
 */
@EnabledIfSystemProperty(named = "orderflow.bench", matches = "true")
class DeliveryThroughputBenchmark {

    @Test
    void deliveriesPerSecondToALocalReceiver() throws Exception {
        int events = Integer.getInteger("orderflow.bench.events", 2000);
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

            long start = System.nanoTime();
            for (int i = 0; i < events; i++) {
                String orderId = "ord_bench_" + UUID.randomUUID();
                OrderEvent event = new OrderEvent("order.completed", orderId, "end", System.currentTimeMillis(),
                        Json.MAPPER.readTree("{\"order\": {\"id\": \"" + orderId
                                + "\"}, \"outcome\": \"completed\", \"reason\": null}"), null);
                producer.send(new ProducerRecord<>(Topics.ORDER_EVENTS.name(), orderId, Json.write(event)));
            }
            producer.flush();
            await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(50))
                    .until(() -> receiver.received().size() >= events);
            double seconds = (System.nanoTime() - start) / 1e9;
            long invalid = receiver.received().stream().filter(r -> !r.signatureValid()).count();
            System.out.printf("BENCH %d deliveries in %.2f s = %.0f deliveries/s (invalid signatures: %d)%n",
                    events, seconds, events / seconds, invalid);
        }
    }
}
