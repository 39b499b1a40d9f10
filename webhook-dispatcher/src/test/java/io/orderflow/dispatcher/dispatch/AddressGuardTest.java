package io.orderflow.dispatcher.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.resolver.AddressResolver;
import io.netty.resolver.AddressResolverGroup;
import io.netty.resolver.InetNameResolver;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Promise;
import io.orderflow.dispatcher.WebhookDispatcherApplication;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.topics.Topics;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import tools.jackson.databind.JsonNode;

/**
 * The address policy at delivery, on a real broker: subscriptions whose urls reach a metadata service, a private
 * address, or (through a host name) loopback over https are refused when their connection would open, with the reason
 * recorded for operators and a generic text for everyone else. Host names are resolved by a stand-in resolver
 * ({@value #REBOUND_HOST} is 127.0.0.1), since the test has no DNS; nothing here ever leaves loopback, because the
 * refusal comes before the connection.
 */
@Tag("docker")
class AddressGuardTest {

    private static final String REBOUND_HOST = "hooks.rebound.test";
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static ConfigurableApplicationContext app;
    private static KafkaProducer<String, String> producer;
    private static HttpClient http;
    private static String base;

    @BeforeAll
    static void start() {
        String bootstrap = TestKafka.containerBootstrapServers();
        SpringApplication application = WebhookDispatcherApplication.application();
        application.addInitializers(context -> ((GenericApplicationContext) context).registerBean(
                "webhookResolver", AddressResolverGroup.class, NamesOnLoopback::new));
        app = application.run(
                "--orderflow.kafka.bootstrap-servers=" + bootstrap,
                "--server.port=0",
                "--orderflow.dispatcher.backoff-initial=200ms",
                "--orderflow.dispatcher.request-timeout=3s",
                "--orderflow.dispatcher.topic-partitions=3",
                "--orderflow.dispatcher.topic-replication=1",
                "--orderflow.dispatcher.group-id=dispatcher-guard-" + UUID.randomUUID());
        base = "http://127.0.0.1:" + ((WebServerApplicationContext) app).getWebServer().getPort();
        producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                new StringSerializer(), new StringSerializer());
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    @AfterAll
    static void stop() {
        if (producer != null) {
            producer.close();
        }
        if (app != null) {
            app.close();
        }
    }

    @Test
    void aMetadataAddressIsRefusedAtDeliveryWithTheReasonRecorded() throws Exception {
        String subscription = subscribe("https://169.254.169.254/latest/meta-data/");
        publishCompleted();

        assertRefused(subscription, "refused: 169.254.169.254 is a cloud metadata address");
    }

    @Test
    void aPrivateAddressIsRefusedAtDeliveryWithTheReasonRecorded() throws Exception {
        String subscription = subscribe("https://10.0.0.1/hook");
        publishCompleted();

        assertRefused(subscription, "refused: 10.0.0.1 is a private address");
    }

    @Test
    void aHostNameResolvingToLoopbackIsRefusedOverHttpsBeforeAnyConnection() throws Exception {
        try (CountingListener listener = new CountingListener()) {
            String subscription = subscribe("https://" + REBOUND_HOST + ":" + listener.port() + "/hook");
            publishCompleted();

            assertRefused(subscription, "refused: 127.0.0.1 is a loopback address (allowed over http only)");
            assertThat(listener.accepted()).as("connections that reached the loopback listener").isZero();
        }
    }

    @Test
    void aLoopbackReceiverOverHttpStillGetsItsDeliveries() throws Exception {
        try (TestReceiver receiver = TestReceiver.answering()) {
            JsonNode created = create(receiver.url());
            receiver.verifyWith(created.get("secret").asString());
            String subscription = created.get("subscription").get("id").asString();
            publishCompleted();

            await().atMost(WAIT).until(() -> receiver.received().size() == 1);
            assertThat(receiver.received().getFirst().signatureValid()).isTrue();
            await().atMost(WAIT).untilAsserted(() -> {
                JsonNode delivery = onlyDelivery(subscription, true);
                assertThat(delivery.get("status").asString()).isEqualTo("delivered");
                assertThat(delivery.get("responseStatus").asInt()).isEqualTo(200);
            });
        }
    }

    /** Failed at its first attempt, never retried; the reason for operators, a generic text for everyone else. */
    private static void assertRefused(String subscription, String reason) throws Exception {
        await().atMost(WAIT).untilAsserted(() -> {
            JsonNode delivery = onlyDelivery(subscription, true);
            assertThat(delivery.get("status").asString()).isEqualTo("failed");
            assertThat(delivery.get("attempts").asInt()).isEqualTo(1);
            assertThat(delivery.get("lastError").asString()).isEqualTo(reason);
            assertThat(delivery.get("responseStatus").isNull()).isTrue();
        });
        JsonNode seenByViewer = onlyDelivery(subscription, false);
        assertThat(seenByViewer.get("lastError").asString())
                .isEqualTo("refused: the subscriber's address is not allowed");
        assertThat(seenByViewer.toString()).doesNotContain(reason.substring("refused: ".length()));
        // No retry follows a refusal: after five times the first backoff, still one attempt.
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2))
                .until(() -> onlyDelivery(subscription, true).get("attempts").asInt() == 1);
    }

    private static String subscribe(String url) throws Exception {
        return create(url).get("subscription").get("id").asString();
    }

    private static JsonNode create(String url) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base + "/internal/subscriptions"))
                        .header("content-type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"url\": \"" + url + "\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        return Json.MAPPER.readTree(response.body());
    }

    private static JsonNode onlyDelivery(String subscription, boolean reasons) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(
                        base + "/internal/subscriptions/" + subscription + "/deliveries?reasons=" + reasons)).build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode deliveries = Json.MAPPER.readTree(response.body()).get("deliveries");
        assertThat(deliveries).as("deliveries of %s", subscription).hasSize(1);
        return deliveries.get(0);
    }

    /** Subscriptions of other tests get this event too; each test reads only its own subscription's record. */
    private static void publishCompleted() {
        String orderId = "ord_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        JsonNode data = Json.MAPPER.readTree("{\"order\": {\"id\": \"" + orderId
                + "\"}, \"outcome\": \"completed\", \"reason\": null}");
        producer.send(new ProducerRecord<>(Topics.ORDER_EVENTS.name(), orderId, Json.write(
                new OrderEvent("order.completed", orderId, "end", System.currentTimeMillis(), data, null))));
        producer.flush();
    }

    /** Resolves {@value #REBOUND_HOST} to 127.0.0.1 and nothing else, as a rebinding DNS server could. */
    private static final class NamesOnLoopback extends AddressResolverGroup<InetSocketAddress> {

        @Override
        protected AddressResolver<InetSocketAddress> newResolver(EventExecutor executor) {
            return new InetNameResolver(executor) {
                @Override
                protected void doResolve(String host, Promise<InetAddress> promise) {
                    try {
                        promise.setSuccess(loopbackFor(host));
                    } catch (UnknownHostException e) {
                        promise.setFailure(e);
                    }
                }

                @Override
                protected void doResolveAll(String host, Promise<List<InetAddress>> promise) {
                    try {
                        promise.setSuccess(List.of(loopbackFor(host)));
                    } catch (UnknownHostException e) {
                        promise.setFailure(e);
                    }
                }
            }.asAddressResolver();
        }

        private static InetAddress loopbackFor(String host) throws UnknownHostException {
            if (host.equals(REBOUND_HOST)) {
                return InetAddress.getByAddress(host, new byte[] {127, 0, 0, 1});
            }
            throw new UnknownHostException(host + " (the test resolves " + REBOUND_HOST + " only)");
        }
    }

    /** A loopback port that counts the connections it accepts. */
    private static final class CountingListener implements AutoCloseable {

        private final ServerSocket socket;
        private final AtomicInteger accepted = new AtomicInteger();

        CountingListener() throws IOException {
            socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread.ofVirtual().start(() -> {
                while (!socket.isClosed()) {
                    try (Socket ignored = socket.accept()) {
                        accepted.incrementAndGet();
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
        }

        int port() {
            return socket.getLocalPort();
        }

        int accepted() {
            return accepted.get();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
