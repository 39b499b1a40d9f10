package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.sun.net.httpserver.HttpServer;
import io.orderflow.kafka.tracing.TraceHeaders;
import io.orderflow.kafka.tracing.TracingSettings;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.topics.Topics;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * One trace id follows an order from the HTTP request that started it to the webhook its end sends: the
 * {@code traceparent} a client sends is honoured by the gateway, every record of the order on {@code order-commands},
 * {@code node-tasks}, {@code run-reports} and {@code order-events} carries its trace id in a {@code traceparent}
 * header, the webhook request the receiver gets carries it too, and each of the four services logs lines with the
 * trace id and the order id in the MDC (which the text pattern and the JSON lines print).
 */
@ExtendWith(SharedStandalone.class)
class TracingEndToEndTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    /** A logger of each service that logs (at debug) while it handles an order. */
    private static final Map<String, String> SERVICE_LOGGERS = Map.of(
            "gateway", "io.orderflow.gateway.commands.CommandBus",
            "order-processor", "io.orderflow.processor.streams.OrderAgent",
            "flow-runner", "io.orderflow.runner.run.RunTopology",
            "webhook-dispatcher", "io.orderflow.dispatcher.dispatch.DeliveryAttempts");

    private static WebTestClient http;
    private static HttpServer receiver;
    /** The {@code traceparent} of each webhook request the receiver got, by the delivered order's id. */
    private static final Map<String, List<String>> traceparents = new HashMap<>();
    private static final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private static final Map<Logger, Level> levelsBefore = new HashMap<>();

    @BeforeAll
    static void start(StandaloneSystem system) throws IOException {
        http = SharedStandalone.client(system);
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/traced", exchange -> {
            JsonNode body = Json.MAPPER.readTree(exchange.getRequestBody().readAllBytes());
            synchronized (traceparents) {
                traceparents.computeIfAbsent(body.get("orderId").asString(), id -> new ArrayList<>())
                        .add(String.valueOf(exchange.getRequestHeaders().getFirst("traceparent")));
            }
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        receiver.start();
        lines.setContext((LoggerContext) LoggerFactory.getILoggerFactory());
        lines.start();
        for (String name : SERVICE_LOGGERS.values()) {
            Logger logger = (Logger) LoggerFactory.getLogger(name);
            levelsBefore.put(logger, logger.getLevel());
            logger.setLevel(Level.DEBUG);
            logger.addAppender(lines);
        }
    }

    @AfterAll
    static void stop() {
        levelsBefore.forEach((logger, level) -> {
            logger.detachAppender(lines);
            logger.setLevel(level);
        });
        lines.stop();
        if (receiver != null) {
            receiver.stop(0);
        }
    }

    @Test
    void the_trace_id_of_the_request_is_on_every_record_of_the_order_on_its_webhook_and_in_each_services_log(
            StandaloneSystem system) {
        JsonNode subscription = post("/api/v1/webhook-subscriptions", Map.of(
                "url", "http://127.0.0.1:" + receiver.getAddress().getPort() + "/traced",
                "events", List.of("order.completed")), null, 201);
        String subscriptionId = subscription.get("subscription").get("id").asString();
        String traceId = HexFormat.of().formatHex(randomBytes(16));
        String traceparent = "00-" + traceId + "-" + HexFormat.of().formatHex(randomBytes(8)) + "-01";

        String orderId = post("/api/v1/orders", Map.of("flowId", "storefront_order", "input", Map.of(
                "type", "storefront_order", "customerId", "cus_traced", "currency", "USD",
                "lines", List.of(Map.of("sku", "MUG-BLUE", "qty", 1, "unitPrice", 12.5)),
                "meta", Map.of("shipTo", "1 Main Street, Springfield"))), traceparent, 201)
                .get("orderId").asString();

        await().atMost(WAIT).until(() -> delivered(orderId).size() == 1);
        assertThat(TraceHeaders.traceId(delivered(orderId).getFirst())).as("the webhook request's trace id")
                .isEqualTo(traceId);

        Map<String, List<ConsumerRecord<String, byte[]>>> records = recordsOf(system.bootstrapServers(), orderId);
        for (String topic : List.of(Topics.ORDER_COMMANDS.name(), Topics.NODE_TASKS.name(),
                Topics.RUN_REPORTS.name(), Topics.ORDER_EVENTS.name())) {
            assertThat(records.get(topic)).as("the order's records on %s", topic).isNotEmpty()
                    .allSatisfy(record -> assertThat(TraceHeaders.traceId(TraceHeaders.traceparent(record.headers())))
                            .as("the trace id of %s at %d-%d", topic, record.partition(), record.offset())
                            .isEqualTo(traceId));
        }

        PatternLayout correlation = new PatternLayout();
        correlation.setContext(lines.getContext());
        correlation.setPattern(TracingSettings.CORRELATION_PATTERN + "%logger %m");
        correlation.start();
        await().atMost(WAIT).untilAsserted(() -> SERVICE_LOGGERS.forEach((service, logger) -> {
            List<String> traced = logged(logger).stream()
                    .filter(event -> traceId.equals(event.getMDCPropertyMap().get(TraceHeaders.TRACE_ID)))
                    .map(correlation::doLayout).toList();
            assertThat(traced).as("%s's lines with the trace id", service).isNotEmpty()
                    .allSatisfy(line -> assertThat(line).startsWith("[" + traceId + "," + orderId + "] "));
        }));

        http.delete().uri("/api/v1/webhook-subscriptions/" + subscriptionId).exchange().expectStatus().isOk();
    }

    @Test
    void a_request_without_a_traceparent_starts_a_trace_that_its_order_carries(StandaloneSystem system) {
        String orderId = post("/api/v1/orders", Map.of("flowId", "storefront_order", "input", Map.of(
                "type", "storefront_order", "customerId", "cus_untraced", "currency", "USD",
                "lines", List.of(Map.of("sku", "MUG-BLUE", "qty", 2, "unitPrice", 12.5)),
                "meta", Map.of("shipTo", "2 Main Street, Springfield"))), null, 201).get("orderId").asString();

        await().atMost(WAIT).untilAsserted(() -> {
            Map<String, List<ConsumerRecord<String, byte[]>>> records =
                    recordsOf(system.bootstrapServers(), orderId);
            assertThat(records.get(Topics.ORDER_EVENTS.name())).isNotEmpty();
            String traceId = TraceHeaders.traceId(TraceHeaders.traceparent(
                    records.get(Topics.ORDER_COMMANDS.name()).getFirst().headers()));
            assertThat(traceId).as("the trace the gateway started").isNotNull();
            assertThat(records.values().stream().flatMap(List::stream))
                    .allSatisfy(record -> assertThat(TraceHeaders.traceId(TraceHeaders.traceparent(
                            record.headers()))).isEqualTo(traceId));
        });
    }

    private static List<String> delivered(String orderId) {
        synchronized (traceparents) {
            return List.copyOf(traceparents.getOrDefault(orderId, List.of()));
        }
    }

    private static List<ILoggingEvent> logged(String logger) {
        synchronized (lines) {
            return lines.list.stream().filter(event -> event.getLoggerName().equals(logger)).toList();
        }
    }

    /** The order's records (keyed by its id) on the four topics it goes through, by topic. */
    private static Map<String, List<ConsumerRecord<String, byte[]>>> recordsOf(String bootstrap, String orderId) {
        List<String> topics = List.of(Topics.ORDER_COMMANDS.name(), Topics.NODE_TASKS.name(),
                Topics.RUN_REPORTS.name(), Topics.ORDER_EVENTS.name());
        Map<String, List<ConsumerRecord<String, byte[]>>> mine = new HashMap<>();
        topics.forEach(topic -> mine.put(topic, new ArrayList<>()));
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "tracing-test-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(topics);
            int emptyPolls = 0;
            while (emptyPolls < 3) {
                var batch = consumer.poll(Duration.ofMillis(500));
                emptyPolls = batch.isEmpty() ? emptyPolls + 1 : 0;
                batch.forEach(record -> {
                    if (orderId.equals(record.key())) {
                        mine.get(record.topic()).add(record);
                    }
                });
            }
        }
        return mine;
    }

    private static byte[] randomBytes(int length) {
        byte[] bytes = new byte[length];
        ThreadLocalRandom.current().nextBytes(bytes);
        bytes[0] |= 1; // never all zeros
        return bytes;
    }

    private static JsonNode post(String path, Object body, String traceparent, int status) {
        WebTestClient.RequestBodySpec request = http.post().uri(path).contentType(MediaType.APPLICATION_JSON);
        if (traceparent != null) {
            request = request.header(TraceHeaders.TRACEPARENT, traceparent);
        }
        byte[] answer = request.bodyValue(body).exchange().expectStatus().isEqualTo(status).expectBody()
                .returnResult().getResponseBody();
        return Json.MAPPER.readTree(new String(answer, StandardCharsets.UTF_8));
    }
}
