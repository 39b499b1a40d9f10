package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.topics.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * An order's {@code documentText} is stored once, before the run starts: the run reads its lines from it, a read of the
 * order shows it as given, and no run report or order update carries it.
 */
@ExtendWith(SharedStandalone.class)
class DocumentStoreEndToEndTest {

    @Test
    void the_document_is_read_by_the_run_and_shown_on_the_order_but_not_copied_into_its_reports(
            StandaloneSystem system) {
        WebTestClient http = SharedStandalone.client(system);
        String marker = "Marker-" + UUID.randomUUID();
        String text = "Hello purchasing,\n2 x PAPER-A4 Copy paper @ 5.10\n" + marker + " " + "padding ".repeat(2_000);
        String orderId = Json.MAPPER.readTree(http.post().uri("/api/v1/orders").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("flowId", "purchase_request", "input", Map.of("type", "purchase_request",
                        "documentText", text, "meta", Map.of("shipTo", "1 Main Street"))))
                .exchange().expectStatus().isCreated().expectBody().returnResult().getResponseBody())
                .get("orderId").asString();

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode order = Json.MAPPER.readTree(http.get().uri("/api/v1/orders/" + orderId).exchange()
                    .expectStatus().isOk().expectBody().returnResult().getResponseBody());
            assertThat(order.get("status").asString()).isEqualTo("completed");
            assertThat(order.get("order").get("documentText").asString()).isEqualTo(text);
            assertThat(order.get("order").get("lines").get(0).get("sku").asString()).isEqualTo("PAPER-A4");
        });

        List<ConsumerRecord<String, byte[]>> records = readAll(system.bootstrapServers(), orderId,
                List.of(Topics.RUN_REPORTS.name(), Topics.ORDER_UPDATES.name()));
        assertThat(records).as("the order's run reports").isNotEmpty();
        assertThat(records).noneSatisfy(record -> assertThat(new String(record.value(), StandardCharsets.UTF_8))
                .contains(marker));
    }

    private static List<ConsumerRecord<String, byte[]>> readAll(String bootstrap, String orderId,
                                                                List<String> topics) {
        List<ConsumerRecord<String, byte[]>> mine = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "documents-test-" + UUID.randomUUID(),
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
                        mine.add(record);
                    }
                });
            }
        }
        return mine;
    }
}
