package io.orderflow.standalone;

import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.processor.OrderProcessorApplication;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.commands.CommandEnvelope;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.flows.EdgeDefinition;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.flows.NodeDefinition;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderType;
import io.orderflow.schemas.topics.Topics;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The processor holding many orders, on a real broker: 100,000 orders are started straight on {@code order-commands};
 * then 32 clients at once list, search, count and page while orders keep changing (cancelled one by one), and every
 * answer is right: the first page is the newest orders, a search finds exactly its customer's orders, the counts
 * add up to every order and follow the cancels, and the last page is reached by the cursor.
 */
@Tag("fault") // the long fault and load runs: ./mvnw -B verify -Pfaults
class ReadsAtSizeTest {

    private static final int ORDERS = 100_000;
    private static final int CUSTOMERS = 1_000;
    private static final FlowVersion FLOW = new FlowVersion("size_flow", 1, 0,
            new FlowDefinition("size_flow", "Storefront order", null, OrderType.STOREFRONT_ORDER,
                    List.of(new NodeDefinition("end", "end", "Done", Json.object(), null)), List.<EdgeDefinition>of()));
    private static final HttpClient http = HttpClient.newHttpClient();

    private static TestKafka.Cluster cluster;
    private static String bootstrap;
    private static ConfigurableApplicationContext processor;
    private static KafkaProducer<String, CommandEnvelope> producer;

    @BeforeAll
    static void start() {
        // a cluster of its own: the counts are exact only over this test's orders
        cluster = TestKafka.newCluster();
        bootstrap = cluster.bootstrapServers();
        producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024),
                Serdes.String().serializer(), Topics.ORDER_COMMANDS.valueSerde().serializer());
        processor = OrderProcessorApplication.application().run(
                "--server.port=0",
                "--orderflow.kafka.bootstrap-servers=" + bootstrap,
                "--orderflow.data-dir=" + TestKafka.uniqueStateDir("processor-size"),
                "--orderflow.streams.application-id=" + TestKafka.uniqueApplicationId("processor-size"),
                "--orderflow.streams.advertised-host=127.0.0.1",
                // the gateway's Spring Security is on this module's classpath; the processor runs without it
                ProcessorLossClusterTest.NO_SECURITY);
    }

    @AfterAll
    static void stop() {
        if (processor != null) {
            processor.close();
        }
        if (producer != null) {
            producer.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void readsAtOneHundredThousandOrdersAnswerTheirPageWhileOrdersChange() throws Exception {
        // given 100,000 orders of 1,000 customers
        for (int i = 0; i < ORDERS; i++) {
            send(new OrderCommand.StartOrder(id(i), FLOW, Json.MAPPER.readTree("""
                    {"type":"storefront_order","customerId":"cus_s%04d","currency":"USD",
                     "lines":[{"sku":"SKU-%d","qty":1,"unitPrice":10}]}""".formatted(i % CUSTOMERS, i % 500)),
                    Json.object(), "fp-" + i, true));
        }
        producer.flush();
        // the whole test took 49 s on this 2-core machine when quiet, under two minutes at a load average of 20;
        // the bound leaves room for a busier machine
        await().atMost(Duration.ofMinutes(12)).pollInterval(Duration.ofSeconds(1))
                .until(() -> total(get("/internal/order-counts")) == ORDERS);

        // when 32 clients read at once while orders are cancelled one after another
        AtomicBoolean reading = new AtomicBoolean(true);
        AtomicInteger cancelled = new AtomicInteger();
        Thread changes = Thread.ofVirtual().start(() -> {
            while (reading.get() && cancelled.get() < 2_000) {
                send(new OrderCommand.CancelOrder(id(cancelled.getAndIncrement() * 7), "changed while read"));
            }
            producer.flush();
        });
        List<Callable<Void>> clients = new ArrayList<>();
        for (int client = 0; client < 32; client++) {
            int c = client;
            clients.add(() -> {
                for (int round = 0; round < 10; round++) {
                    switch ((c + round) % 4) {
                        case 0 -> {
                            JsonNode page = get("/internal/orders?limit=50");
                            JsonNode next = get("/internal/orders?limit=50&cursor=" + page.get("next").asString());
                            List<Long> created = new ArrayList<>();
                            page.get("orders").forEach(row -> created.add(row.get("createdAt").asLong()));
                            next.get("orders").forEach(row -> created.add(row.get("createdAt").asLong()));
                            assertThat(created).hasSize(100).isSortedAccordingTo(java.util.Comparator.reverseOrder());
                        }
                        case 1 -> {
                            String customer = "cus_s%04d".formatted(c);
                            JsonNode found = get("/internal/orders?q=" + customer + "&limit=200");
                            assertThat(found.get("orders")).hasSize(ORDERS / CUSTOMERS).allSatisfy(row ->
                                    assertThat(row.get("customerId").asString()).isEqualTo(customer));
                            assertThat(found.has("next")).isFalse();
                        }
                        case 2 -> {
                            JsonNode counts = get("/internal/order-counts");
                            assertThat(total(counts)).isEqualTo(ORDERS);
                            assertThat(counts.get("counts").get("cancelled").asLong()).isBetween(0L, 2_000L);
                        }
                        default -> {
                            JsonNode sku = get("/internal/orders?q=SKU-" + c + "&sort=updated&limit=20");
                            assertThat(sku.get("orders")).hasSize(20);
                            JsonNode byStatus = get("/internal/orders?status=queued&limit=100");
                            assertThat(byStatus.get("orders")).hasSize(100).allSatisfy(row ->
                                    assertThat(row.get("status").asString()).isEqualTo("queued"));
                        }
                    }
                }
                return null;
            });
        }
        try (ExecutorService pool = Executors.newFixedThreadPool(32)) {
            for (Future<Void> answer : pool.invokeAll(clients)) {
                answer.get();
            }
        } finally {
            reading.set(false);
            changes.join();
        }

        // then the counts follow every cancel, and a cursor walk of 200-row pages meets every order once
        int changed = cancelled.get();
        await().atMost(Duration.ofMinutes(1)).untilAsserted(() ->
                assertThat(get("/internal/order-counts").get("counts").get("cancelled").asLong()).isEqualTo(changed));
        JsonNode cancelledPage = get("/internal/orders?status=cancelled&limit=200");
        assertThat(cancelledPage.get("orders")).hasSize(Math.min(200, changed));
        String cursor = null;
        int pages = 0;
        java.util.Set<String> seen = new java.util.HashSet<>();
        do {
            JsonNode page = get("/internal/orders?limit=200&type=storefront_order"
                    + (cursor == null ? "" : "&cursor=" + cursor));
            page.get("orders").forEach(row -> assertThat(seen.add(row.get("id").asString())).isTrue());
            cursor = page.hasNonNull("next") ? page.get("next").asString() : null;
            pages++;
        } while (cursor != null);
        assertThat(pages).isEqualTo(ORDERS / 200);
        assertThat(seen).hasSize(ORDERS).contains(id(0), id(ORDERS - 1));
    }

    private static String id(int i) {
        return "ord_size%06d".formatted(i);
    }

    private static void send(OrderCommand command) {
        producer.send(new ProducerRecord<>(Topics.ORDER_COMMANDS.name(), command.orderId(),
                new CommandEnvelope(java.util.UUID.randomUUID().toString(), "size-test", System.currentTimeMillis(),
                        Caller.OPEN, command)));
    }

    private static long total(JsonNode counts) {
        return counts.path("total").asLong(-1);
    }

    private static JsonNode get(String path) throws Exception {
        int port = processor.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
        return Json.MAPPER.readTree(response.body());
    }
}
