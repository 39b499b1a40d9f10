package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.TopicReader;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.batches.BatchRecord;
import io.orderflow.schemas.commands.CommandEnvelope;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.topics.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * A batch survives a restart of the whole system without acting on an order twice. The system runs on a cluster of
 * its own, which outlives it: a slow cancel batch is part way when the system stops; before it starts again the
 * batch's checkpoint is set back to an early one (as if the instance running it had died just after writing it), so
 * after the restart the batch sends again the orders it had done since. Every order ends cancelled once, with one
 * timeline entry naming the batch, and the batch counts each once.
 */
@OwnSystem
class BatchesRestartEndToEndTest {

    private static final Duration ORDINARY = Duration.ofSeconds(90);
    private static final int ORDERS = 10;

    @Test
    void a_batch_goes_on_after_a_restart_from_an_older_checkpoint_and_acts_on_no_order_twice() throws Exception {
        try (TestKafka.Cluster cluster = TestKafka.newCluster()) {
            StandaloneSettings settings = new StandaloneSettings(0, TestKafka.uniqueStateDir("batches-restart"),
                    Optional.of(cluster.bootstrapServers()), 0);
            List<ConsumerRecord<String, BatchRecord>> progress = new CopyOnWriteArrayList<>();
            Map<String, Integer> sent = new ConcurrentHashMap<>();
            String customer = "cus_restart" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
            List<String> orders;
            String id;
            try (TopicReader<String, BatchRecord> checkpoints = new TopicReader<>(cluster.bootstrapServers(),
                    Topics.BATCHES, TopicReader.From.BEGINNING, record -> {
                        if (record.value() instanceof BatchRecord.Progress) {
                            progress.add(record);
                        }
                    });
                 TopicReader<String, CommandEnvelope> commands = new TopicReader<>(cluster.bootstrapServers(),
                         Topics.ORDER_COMMANDS, TopicReader.From.BEGINNING, record -> {
                             if (record.value() != null
                                     && record.value().command() instanceof OrderCommand.ApplyBatchAction batch) {
                                 sent.merge(batch.orderId(), 1, Integer::sum);
                             }
                         })) {
                checkpoints.start();
                commands.start();

                try (StandaloneSystem first = StandaloneSystem.start(settings)) {
                    WebTestClient http = SharedStandalone.client(first);
                    orders = IntStream.range(0, ORDERS).mapToObj(i -> purchaseRequest(http, customer)).toList();
                    await().atMost(ORDINARY).untilAsserted(() -> orders.forEach(order ->
                            assertThat(order(http, order).get("status").asString()).isEqualTo("waiting")));
                    id = json(http.post().uri("/api/v1/batches").contentType(MediaType.APPLICATION_JSON)
                            .bodyValue(Map.of("filter", Map.of("q", customer, "status", "waiting"),
                                    "action", "cancel", "reason", "Supplier withdrawn", "rate", 1))
                            .exchange().expectStatus().isAccepted()).get("id").asString();
                    await().atMost(ORDINARY).until(() -> json(http.get().uri("/api/v1/batches/" + id).exchange()
                            .expectStatus().isOk()).get("done").asInt() >= 3);
                }

                // given: the batch's checkpoint set back to an early one, with an order or two done
                ConsumerRecord<String, BatchRecord> early = progress.stream()
                        .filter(r -> r.value() instanceof BatchRecord.Progress p && p.batchId().equals(id)
                                && BatchRecord.ACTING.equals(p.phase()) && p.done() >= 1)
                        .findFirst().orElseThrow();
                int doneEarly = ((BatchRecord.Progress) early.value()).done();
                long setBack;
                try (KafkaProducer<String, BatchRecord> producer = new KafkaProducer<>(Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()),
                        Topics.BATCHES.keySerde().serializer(), Topics.BATCHES.valueSerde().serializer())) {
                    var written = producer.send(new ProducerRecord<>(Topics.BATCHES.name(), early.partition(),
                            early.key(), early.value())).get();
                    checkpoints.applied(written).get();
                    setBack = written.offset();
                }
                // every checkpoint the first system wrote comes before the one set back, on the same partition
                int doneAtStop = progress.stream().filter(r -> r.offset() < setBack)
                        .map(r -> (BatchRecord.Progress) r.value()).filter(p -> p.batchId().equals(id))
                        .mapToInt(BatchRecord.Progress::done).max().orElseThrow();
                assertThat(doneAtStop).as("done when the system stopped").isBetween(doneEarly + 1, ORDERS - 1);

                // when: the system starts again
                try (StandaloneSystem second = StandaloneSystem.start(settings)) {
                    WebTestClient http = SharedStandalone.client(second);
                    JsonNode batch = await().atMost(ORDINARY).until(() -> json(http.get()
                            .uri("/api/v1/batches/" + id).exchange().expectStatus().isOk()),
                            b -> b.get("state").asString().equals("completed"));

                    // then: each order once, though the orders done after the early checkpoint were sent again
                    assertThat(batch.get("matched").asInt()).isEqualTo(ORDERS);
                    assertThat(batch.get("done").asInt()).isEqualTo(ORDERS);
                    assertThat(batch.get("failed").asInt()).isZero();
                    for (String order : orders) {
                        JsonNode state = order(http, order);
                        assertThat(state.get("status").asString()).as(order).isEqualTo("cancelled");
                        assertThat(state.get("timeline").valueStream()
                                .filter(e -> e.get("kind").asString().equals("cancel"))
                                .map(e -> e.get("message").asString()).toList()).as(order)
                                .containsExactly("Cancelled by batch " + id + ": Supplier withdrawn");
                    }
                    int again = doneAtStop - doneEarly;
                    await().atMost(ORDINARY).until(() -> sent.values().stream().mapToInt(Integer::intValue).sum()
                            >= ORDERS + again);
                    assertThat(sent.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey)
                            .collect(Collectors.toSet())).as("orders sent again after the restart")
                            .hasSizeGreaterThanOrEqualTo(again).allSatisfy(order -> assertThat(orders).contains(order));
                }
            }
        }
    }

    private static String purchaseRequest(WebTestClient http, String customer) {
        Map<String, Object> input = Map.of("type", "purchase_request", "customerId", customer, "currency", "USD",
                "lines", List.of(Map.of("sku", "LAPTOP-14", "qty", 2)), "meta", Map.of("shipTo", "HQ"));
        return json(http.post().uri("/api/v1/orders").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("flowId", "purchase_request", "input", input)).exchange()
                .expectStatus().isCreated()).get("orderId").asString();
    }

    private static JsonNode order(WebTestClient http, String id) {
        return json(http.get().uri("/api/v1/orders/" + id).exchange().expectStatus().isOk());
    }

    private static JsonNode json(WebTestClient.ResponseSpec response) {
        return Json.MAPPER.readTree(response.expectBody().returnResult().getResponseBody());
    }
}
