package io.orderflow.processor;

import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.processor.streams.OrderAgent;
import io.orderflow.processor.streams.OrderStreams;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.commands.CommandEnvelope;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.flows.EdgeDefinition;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.FlowRecord;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.flows.NodeDefinition;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderType;
import io.orderflow.schemas.tasks.NodeTask;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.model.WaitRequest;
import java.math.BigDecimal;
import io.orderflow.schemas.topics.Topics;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.state.HostInfo;
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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The processor as a Spring Boot app on a real broker: a start command is answered 201 on {@code command-replies},
 * a start task goes to {@code node-tasks}, and the internal API answers the live state. With a second instance in
 * the group, a read for an order owned by the other instance is forwarded and answered, and the list is gathered
 * from both. The instances run with {@code INTERNAL_TOKEN}: a read without it is 401, and a forwarded read carries it.
 */
@Tag("docker")
class ProcessorOnBrokerTest {

    private static final String REPLY_TO = "gw-" + UUID.randomUUID();
    /** Published on {@code flows} before the start: the read shows its whole graph from there. */
    private static final String FLOW_ID = "storefront_it_" + UUID.randomUUID().toString().substring(0, 8);
    private static final FlowVersion FLOW = new FlowVersion(FLOW_ID, 1, 0,
            new FlowDefinition(FLOW_ID, "Storefront order", null, OrderType.STOREFRONT_ORDER,
                    List.of(new NodeDefinition("price", "pricing", "Price", Json.object(), null),
                            new NodeDefinition("end", "end", "Done", Json.object(), null)),
                    List.of(new EdgeDefinition("e1", "price", "end", null))));

    private static final HttpClient http = HttpClient.newHttpClient();
    private static final String INTERNAL_TOKEN = "it-internal-token-" + UUID.randomUUID();
    private static String bootstrap;
    private static String applicationId;
    private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();
    private static KafkaProducer<String, CommandEnvelope> producer;

    @BeforeAll
    static void broker() {
        bootstrap = TestKafka.containerBootstrapServers();
        applicationId = TestKafka.uniqueApplicationId("processor-it");
        producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                Serdes.String().serializer(), Topics.ORDER_COMMANDS.valueSerde().serializer());
        try (var flows = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                Topics.FLOWS.keySerde().serializer(), Topics.FLOWS.valueSerde().serializer())) {
            flows.send(new ProducerRecord<>(Topics.FLOWS.name(), FLOW_ID, new FlowRecord(FLOW_ID, "Storefront order",
                    null, OrderType.STOREFRONT_ORDER, 1, 0, List.of(FLOW))));
        }
    }

    @AfterAll
    static void stop() {
        instances.reversed().forEach(ConfigurableApplicationContext::close);
        if (producer != null) {
            producer.close();
        }
    }

    private static ConfigurableApplicationContext startInstance() {
        ConfigurableApplicationContext context = OrderProcessorApplication.application().run(
                "--server.port=0",
                "--orderflow.kafka.bootstrap-servers=" + bootstrap,
                "--orderflow.data-dir=" + TestKafka.uniqueStateDir("processor-data"),
                "--orderflow.streams.application-id=" + applicationId,
                "--orderflow.streams.advertised-host=127.0.0.1",
                "--orderflow.internal.token=" + INTERNAL_TOKEN);
        instances.add(context);
        return context;
    }

    private static int port(ConfigurableApplicationContext context) {
        return context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }

    private static KafkaStreams streams(ConfigurableApplicationContext context) {
        return context.getBean(OrderStreams.class).streams().orElseThrow();
    }

    private static HttpResponse<String> get(ConfigurableApplicationContext instance, String path) throws Exception {
        return get(instance, path, INTERNAL_TOKEN);
    }

    private static HttpResponse<String> get(ConfigurableApplicationContext instance, String path, String token)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port(instance) + path));
        if (token != null) {
            request.header("X-Internal-Token", token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    /** Order ids that land on each of the three partitions, so a second instance owns some of them. */
    private static List<String> orderIdsOnEveryPartition() {
        Map<Integer, String> byPartition = new HashMap<>();
        for (int i = 0; byPartition.size() < 3; i++) {
            String id = "ord_it" + UUID.randomUUID().toString().substring(0, 8) + i;
            int partition = Utils.toPositive(Utils.murmur2(id.getBytes(StandardCharsets.UTF_8))) % 3;
            byPartition.putIfAbsent(partition, id);
        }
        return List.copyOf(byPartition.values());
    }

    @Test
    void startsAnOrderAnswersItsStateAndForwardsReadsToTheOwningInstance() throws Exception {
        ConfigurableApplicationContext first = startInstance();
        List<String> orderIds = orderIdsOnEveryPartition();

        // when the gateway sends start commands
        Set<String> correlations = new HashSet<>();
        for (String orderId : orderIds) {
            String correlation = UUID.randomUUID().toString();
            correlations.add(correlation);
            var start = new OrderCommand.StartOrder(orderId, FLOW, Json.MAPPER.readTree("""
                    {"type":"storefront_order","customerId":"cus_it","currency":"USD",
                     "lines":[{"sku":"A","qty":1,"unitPrice":10}]}"""), Json.object(), "fp-" + orderId, true);
            producer.send(new ProducerRecord<>(Topics.ORDER_COMMANDS.name(), orderId,
                    new CommandEnvelope(correlation, REPLY_TO, System.currentTimeMillis(), Caller.OPEN, start)));
        }
        producer.flush();

        // then each gets one 201 reply, and a start task goes to the runner
        Map<String, CommandReply> replies = new HashMap<>();
        Set<String> started = new HashSet<>();
        try (var replyConsumer = consumer(Topics.COMMAND_REPLIES.valueSerde().deserializer());
             var taskConsumer = consumer(Topics.NODE_TASKS.valueSerde().deserializer())) {
            replyConsumer.subscribe(List.of(Topics.COMMAND_REPLIES.name()));
            taskConsumer.subscribe(List.of(Topics.NODE_TASKS.name()));
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                replyConsumer.poll(Duration.ofMillis(200)).forEach(r -> {
                    if (REPLY_TO.equals(r.key())) {
                        replies.put(r.value().correlationId(), r.value());
                    }
                });
                taskConsumer.poll(Duration.ofMillis(200)).forEach(r -> {
                    if (r.value() instanceof NodeTask.StartRun run && orderIds.contains(run.orderId())) {
                        started.add(run.orderId());
                    }
                });
                return replies.keySet().containsAll(correlations) && started.containsAll(orderIds);
            });
        }
        assertThat(replies.values()).allSatisfy(reply -> assertThat(reply.status()).isEqualTo(201));

        // and the internal API answers the live state
        HttpResponse<String> read = get(first, "/internal/orders/" + orderIds.getFirst());
        assertThat(read.statusCode()).isEqualTo(200);
        JsonNode state = Json.MAPPER.readTree(read.body());
        assertThat(state.get("status").asString()).isEqualTo("queued");
        assertThat(state.get("generation").asInt()).isEqualTo(1);
        assertThat(state.has("seq")).isFalse();
        // the stored state keeps a reference to the pinned flow; the read shows its whole graph
        assertThat(Json.MAPPER.treeToValue(state.get("flow"), FlowVersion.class)).isEqualTo(FLOW);
        assertThat(get(first, "/internal/orders/ord_unknown").statusCode()).isEqualTo(404);
        // the internal API needs the token
        for (String token : new String[] {null, "wrong", INTERNAL_TOKEN + "x"}) {
            HttpResponse<String> refused = get(first, "/internal/orders/" + orderIds.getFirst(), token);
            assertThat(refused.statusCode()).as(token).isEqualTo(401);
            assertThat(Json.MAPPER.readTree(refused.body()).get("error").asString()).contains("X-Internal-Token");
        }
        assertThat(get(first, "/internal/orders", null).statusCode()).isEqualTo(401);

        // and an approval wait reported by the run shows in the approvals inbox
        try (var reports = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                Serdes.String().serializer(), Topics.RUN_REPORTS.valueSerde().serializer())) {
            String orderId = orderIds.getFirst();
            reports.send(new ProducerRecord<>(Topics.RUN_REPORTS.name(), orderId, new RunReport.WaitRequested(orderId,
                    orderId + ".1", 1, new WaitRequest("approve", "approval", "Approve order " + orderId, "approval",
                    "manager", new BigDecimal("10"), Duration.ofDays(2).toMillis(), System.currentTimeMillis()))));
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode inbox = Json.MAPPER.readTree(get(first, "/internal/approvals?status=pending").body());
            assertThat(inbox.get("approvals")).as(inbox.toString()).anySatisfy(row -> {
                assertThat(row.get("orderId").asString()).isEqualTo(orderIds.getFirst());
                assertThat(row.get("status").asString()).isEqualTo("pending");
            });
            JsonNode approved = Json.MAPPER.readTree(get(first, "/internal/approvals?status=approved").body());
            assertThat(approved.get("approvals")).isEmpty();
        });

        // given a second instance that takes over some partitions
        ConfigurableApplicationContext second = startInstance();
        HostInfo secondHost = second.getBean(OrderStreams.class).self();
        await().atMost(Duration.ofSeconds(90)).until(() -> {
            if (streams(first).state() != KafkaStreams.State.RUNNING
                    || streams(second).state() != KafkaStreams.State.RUNNING) {
                return false;
            }
            return orderIds.stream().anyMatch(id -> secondHost.equals(ownerSeenBy(first, id)));
        });
        String ownedBySecond = orderIds.stream().filter(id -> secondHost.equals(ownerSeenBy(first, id)))
                .findFirst().orElseThrow();

        // when the first instance is asked for an order the second owns, it forwards and answers
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            HttpResponse<String> forwarded = get(first, "/internal/orders/" + ownedBySecond);
            assertThat(forwarded.statusCode()).isEqualTo(200);
            assertThat(Json.MAPPER.readTree(forwarded.body()).get("orderId").asString()).isEqualTo(ownedBySecond);
        });

        // and when the second changes that order, the first answers the change: it no longer answers the order from
        // what it wrote itself before the partition moved (LiveOrders)
        producer.send(new ProducerRecord<>(Topics.ORDER_COMMANDS.name(), ownedBySecond,
                new CommandEnvelope(UUID.randomUUID().toString(), REPLY_TO, System.currentTimeMillis(), Caller.OPEN,
                        new OrderCommand.CancelOrder(ownedBySecond, "moved partition")))).get();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode moved = Json.MAPPER.readTree(get(first, "/internal/orders/" + ownedBySecond).body());
            assertThat(moved.get("status").asString()).as(moved.toString()).isEqualTo("cancelled");
        });

        // and the list from either instance gathers every order
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            HttpResponse<String> list = get(first, "/internal/orders?q=cus_it");
            assertThat(list.statusCode()).isEqualTo(200);
            List<String> ids = new ArrayList<>();
            Json.MAPPER.readTree(list.body()).get("orders").forEach(row -> ids.add(row.get("id").asString()));
            assertThat(ids).containsExactlyInAnyOrderElementsOf(orderIds);
        });
        // and the second instance's index, restored from the changelog into a new state directory, has its search
        // keys and counters too: the counts gathered from both instances are exact
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode counts = Json.MAPPER.readTree(get(second, "/internal/order-counts?q=cus_it").body());
            assertThat(counts.get("total").asLong()).as(counts.toString()).isEqualTo(orderIds.size());
            assertThat(counts.get("counts").get("cancelled").asLong()).isEqualTo(1);
            JsonNode all = Json.MAPPER.readTree(get(first, "/internal/order-counts?type=storefront_order").body());
            assertThat(all.get("counts").get("cancelled").asLong()).as(all.toString()).isEqualTo(1);
            assertThat(all.get("counts").get("queued").asLong()).isEqualTo(orderIds.size() - 1);
        });
    }

    private static HostInfo ownerSeenBy(ConfigurableApplicationContext instance, String orderId) {
        KeyQueryMetadata metadata = streams(instance).queryMetadataForKey(OrderAgent.ORDERS, orderId,
                Serdes.String().serializer());
        return metadata == null || metadata == KeyQueryMetadata.NOT_AVAILABLE ? null : metadata.activeHost();
    }

    private static <V> KafkaConsumer<String, V> consumer(org.apache.kafka.common.serialization.Deserializer<V> values) {
        return new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "it-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                Serdes.String().deserializer(), values);
    }
}
