package io.orderflow.dispatcher.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.dispatcher.WebhookDispatcherApplication;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.kafka.tracing.TraceHeaders;
import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.topics.Topics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A dispatcher on the test broker with the given settings, its internal API over HTTP, and a producer of order events:
 * what the dispatcher's tests on the broker share. A test class registers it as a static
 * {@code @RegisterExtension} field: it starts before the class's first test and stops after its last
 * ({@link #afterAll}). After each test the subscriptions made through it are deleted and the receivers handed to
 * {@link #receiver} are closed, so no test sees another's deliveries or retries.
 */
final class DispatcherHttp implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

    /** One answer: status, {@code Retry-After} if any, and the JSON body. */
    record Answer(int status, String retryAfter, JsonNode body) {
    }

    private final String[] settings;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final List<String> subscriptions = new ArrayList<>();
    private final List<TestReceiver> receivers = new ArrayList<>();
    private ConfigurableApplicationContext app;
    private KafkaProducer<String, String> producer;
    private String base;

    /** A dispatcher to start with {@code settings} (command-line arguments) on top of the test broker's. */
    DispatcherHttp(String... settings) {
        this.settings = settings.clone();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        String bootstrap = TestKafka.bootstrapServers();
        app = WebhookDispatcherApplication.application().run(Stream.concat(Stream.of(
                "--orderflow.kafka.bootstrap-servers=" + bootstrap,
                "--server.port=0",
                "--orderflow.dispatcher.topic-partitions=3",
                "--orderflow.dispatcher.topic-replication=1",
                "--orderflow.dispatcher.group-id=dispatcher-it-" + UUID.randomUUID()), Stream.of(settings))
                .toArray(String[]::new));
        base = "http://127.0.0.1:" + ((WebServerApplicationContext) app).getWebServer().getPort();
        producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                new StringSerializer(), new StringSerializer());
    }

    /** Hands {@code receiver} to the dispatcher to close after the test. */
    TestReceiver receiver(TestReceiver receiver) {
        receivers.add(receiver);
        return receiver;
    }

    /** Subscribes {@code receiver} (all events when {@code events} is null) and lets it verify with the secret. */
    String subscribe(TestReceiver receiver, List<String> events) throws Exception {
        JsonNode created = subscribeForSecret(receiver, events);
        receiver.verifyWith(created.get("secret").asString());
        return created.get("subscription").get("id").asString();
    }

    /** The creation answer, {@code {subscription, secret}}. */
    JsonNode subscribeForSecret(TestReceiver receiver, List<String> events) throws Exception {
        return subscribeForSecret(receiver.url(), events);
    }

    /** As {@link #subscribeForSecret(TestReceiver, List)}, for a url where nothing may listen yet. */
    JsonNode subscribeForSecret(String url, List<String> events) throws Exception {
        ObjectNode body = Json.object();
        body.put("url", url);
        if (events != null) {
            body.set("events", Json.tree(events));
        }
        Answer created = call("POST", "/internal/subscriptions", Json.write(body));
        assertThat(created.status()).as(created.body().toString()).isEqualTo(201);
        return created.body();
    }

    Answer call(String method, String path, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(30))
                .header("content-type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        String text = response.body();
        Answer answer = new Answer(response.statusCode(),
                response.headers().firstValue("retry-after").orElse(null),
                text.startsWith("{") ? Json.MAPPER.readTree(text) : Json.tree(Map.of("text", text)));
        if (method.equals("POST") && path.equals("/internal/subscriptions") && answer.status() == 201) {
            subscriptions.add(answer.body().get("subscription").get("id").asString());
        } else if (method.equals("DELETE") && answer.status() == 200) {
            subscriptions.remove(path.substring(path.lastIndexOf('/') + 1));
        }
        return answer;
    }

    /** The raw text of a GET (the Prometheus page, say). */
    String text(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    List<JsonNode> deliveries(String subscription) throws Exception {
        List<JsonNode> list = new ArrayList<>();
        call("GET", "/internal/subscriptions/" + subscription + "/deliveries", null).body().get("deliveries")
                .forEach(list::add);
        return list;
    }

    /** The subscription's delivery of {@code deliveryId}; fails as an assertion while there is none. */
    JsonNode delivery(String subscription, String deliveryId) throws Exception {
        return deliveries(subscription).stream().filter(d -> d.get("id").asString().equals(deliveryId))
                .findFirst().orElseThrow(() -> new AssertionError("no delivery " + deliveryId + " yet"));
    }

    /**
     * The subscription's first delivery record. While it has none yet (the fan-out reads events in batches, up to
     * 100 ms later) this fails as an assertion, which an await retries, not with the list's NoSuchElementException,
     * which ends it.
     */
    JsonNode firstDelivery(String subscription) throws Exception {
        List<JsonNode> all = deliveries(subscription);
        assertThat(all).as("deliveries of " + subscription).isNotEmpty();
        return all.getFirst();
    }

    /** The subscription as the list shows it. */
    JsonNode listed(String subscription) throws Exception {
        for (JsonNode listed : call("GET", "/internal/subscriptions", null).body().get("subscriptions")) {
            if (listed.get("id").asString().equals(subscription)) {
                return listed;
            }
        }
        throw new AssertionError("subscription " + subscription + " is not listed");
    }

    /** Publishes an event and flushes it to the broker. */
    void publish(OrderEvent event) {
        producer.send(new ProducerRecord<>(Topics.ORDER_EVENTS.name(), event.orderId(), Json.write(event)));
        producer.flush();
    }

    /** Publishes an event stamped {@code timestamp} (epoch ms; null: now) and waits for the broker to have it. */
    void publish(OrderEvent event, Long timestamp) throws Exception {
        publish(event, timestamp, null);
    }

    /**
     * As {@link #publish(OrderEvent, Long)}, with the order's trace context in the record's {@code traceparent}
     * header, as the processor and the runner write it (none when null).
     */
    void publish(OrderEvent event, Long timestamp, String traceparent) throws Exception {
        producer.send(new ProducerRecord<>(Topics.ORDER_EVENTS.name(), null, timestamp, event.orderId(),
                Json.write(event), TraceHeaders.of(traceparent))).get();
    }

    /**
     * The value of one series of the dispatcher's Prometheus page (the first line of {@code name}, whatever its
     * labels); 0 when it has none.
     */
    double meter(String name) throws Exception {
        for (String line : text("/actuator/prometheus").split("\n")) {
            if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return 0;
    }

    /**
     * How many records keyed {@code key} {@code topic} holds (each topic that exists and whose name starts with
     * {@code topic}, so a topic's retry and dead-letter topics count with it): what a delivery cost in Kafka records.
     */
    static long recordsKeyed(String topic, String key) throws Exception {
        return readKeyed(topic, key).size();
    }

    /**
     * The records keyed {@code key} of {@code topic} and of the topics whose names start with it, as
     * {@link #recordsKeyed} counts them.
     */
    static List<ConsumerRecord<String, String>> readKeyed(String topic, String key) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                TestKafka.bootstrapServers()));
             KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                     ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers(),
                     ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                     new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (TopicDescription described : admin.describeTopics(admin.listTopics().names().get().stream()
                    .filter(name -> name.startsWith(topic)).toList()).allTopicNames().get().values()) {
                described.partitions().forEach(p -> partitions.add(new TopicPartition(described.name(),
                        p.partition())));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            List<ConsumerRecord<String, String>> keyed = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
                assertThat(System.nanoTime()).as("reading " + topic).isLessThan(deadline);
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    if (key.equals(record.key())) {
                        keyed.add(record);
                    }
                }
            }
            return keyed;
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        for (String subscription : List.copyOf(subscriptions)) {
            call("DELETE", "/internal/subscriptions/" + subscription, null);
        }
        subscriptions.clear();
        receivers.forEach(TestReceiver::close);
        receivers.clear();
    }

    static OrderEvent event(String name, String orderId, String step, Integer retries) {
        JsonNode data = Json.MAPPER.readTree("""
                {"order": {"id": "%s", "type": "storefront_order", "title": "Storefront order", "customerId": "cus_1",
                 "currency": "EUR", "subtotal": 100, "tax": 18.8, "total": 118.8, "fxRate": 0.92,
                 "baseTotal": 129.13}}""".formatted(orderId));
        return new OrderEvent(name, orderId, step, System.currentTimeMillis(), data, retries);
    }

    static String newOrderId() {
        return "ord_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    }

    /**
     * Stops the dispatcher and empties the attempts, retry and dead-letter topics, so that the next test class's
     * dispatcher (a new consumer group, reading from the beginning) does not meet this one's retries: a retry topic's
     * partition waits until its first record is due, so a retry due in 60 s under this class's schedule would hold the
     * next class's retries of 400 ms behind it for up to a minute.
     */
    @Override
    public void afterAll(ExtensionContext context) {
        if (app == null) {
            return;
        }
        producer.close();
        app.close();
        app = null;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                TestKafka.bootstrapServers()))) {
            Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
            for (TopicDescription topic : admin.describeTopics(admin.listTopics().names().get().stream()
                    .filter(name -> name.startsWith(DispatcherTopics.DELIVERY_ATTEMPTS)).toList())
                    .allTopicNames().get().values()) {
                topic.partitions().forEach(p -> ends.put(new TopicPartition(topic.name(), p.partition()),
                        OffsetSpec.latest()));
            }
            Map<TopicPartition, RecordsToDelete> before = new HashMap<>();
            admin.listOffsets(ends).all().get().forEach((partition, end) ->
                    before.put(partition, RecordsToDelete.beforeOffset(end.offset())));
            admin.deleteRecords(before).all().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException("Could not empty the delivery attempts topics", e);
        }
    }
}
