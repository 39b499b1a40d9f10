package io.orderflow.gateway.limits;

import io.orderflow.gateway.commands.CommandBus;
import io.orderflow.gateway.testing.GatewayDeployment;
import io.orderflow.schemas.topics.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Overload is refused, not queued: with {@code OVERLOAD_BACKLOG} at 50, a start is answered 503 with
 * {@code Retry-After} while more than 50 records wait for the order-processor's group, and accepted again once the
 * group has caught up; an approval or a cancel is never refused for it. With {@code OVERLOAD_AWAITING} at 3, a start is
 * refused while an instance has three commands out without a reply, whatever the backlog.
 */
class AdmissionTest {

    private static final String GROUP = "orderflow-order-processor";
    private static final String ORDER = """
            {"flowId": "storefront_order", "input": {"type": "storefront_order", "customerId": "c-1",
             "lines": [{"sku": "SKU-1", "qty": 2, "unitPrice": 9.5}]}}""";
    private static GatewayDeployment deployment;
    private static WebTestClient http;
    private static Admin admin;

    @BeforeAll
    static void deploy() {
        deployment = new GatewayDeployment(null, "--orderflow.admission.max-backlog=50");
        http = deployment.startInstance();
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, deployment.bootstrap));
    }

    @AfterAll
    static void stop() {
        admin.close();
        deployment.close();
    }

    @Test
    void startsAreRefusedWithRetryAfterWhileTheProcessorIsBehindAndAcceptedOnceItCaughtUp() throws Exception {
        // given the processor's group committed at the start of order-commands, and 120 records after it
        commitAt(0);
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, deployment.bootstrap), new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < 120; i++) {
                producer.send(new ProducerRecord<>(Topics.ORDER_COMMANDS.name(), "ord_backlog" + i, "{}"));
            }
        }

        // when an order is started, it is refused with the reason and when to come back
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> postOrder().expectStatus().isEqualTo(503)
                .expectHeader().valueEquals(HttpHeaders.RETRY_AFTER, "3")
                .expectBody().jsonPath("$.error").value(error -> org.assertj.core.api.Assertions
                        .assertThat((String) error).startsWith("The service is busy: ")));
        // and a cancel of an order already in goes through to the processor all the same
        http.post().uri("/api/v1/orders/ord_in/cancel").contentType(MediaType.APPLICATION_JSON).bodyValue("{}")
                .exchange().expectStatus().value(status -> org.assertj.core.api.Assertions.assertThat(status)
                        .isNotEqualTo(503));

        // then once the group has caught up, starts are accepted again
        commitAtEnd();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> postOrder().expectStatus().isCreated());
    }

    @Test
    void startsAreRefusedWhileTheInstanceHasAsManyCommandsWithoutAReplyAsItsBound() throws Exception {
        // given an instance that takes at most three commands without a reply, and three cancels the processor holds
        WebTestClient bounded = deployment.startInstance("--orderflow.admission.max-awaiting=3");
        CommandBus commands = deployment.bean(1, CommandBus.class);
        List<CompletableFuture<Integer>> held = new ArrayList<>();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 3; i++) {
                String orderId = "ord_held" + i;
                deployment.processor.silence(orderId);
                held.add(CompletableFuture.supplyAsync(() -> bounded.post().uri("/api/v1/orders/" + orderId
                        + "/cancel").contentType(MediaType.APPLICATION_JSON).bodyValue("{}").exchange()
                        .returnResult(String.class).getStatus().value(), clients));
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> commands.awaitingReplies() == 3);

            // when an order is started there, it is refused at once, saying why
            bounded.post().uri("/api/v1/orders").contentType(MediaType.APPLICATION_JSON).bodyValue(ORDER).exchange()
                    .expectStatus().isEqualTo(503)
                    .expectHeader().valueEquals(HttpHeaders.RETRY_AFTER, "1")
                    .expectBody().jsonPath("$.error").isEqualTo("The service is busy: 3 commands wait for the order "
                            + "processor's answer; retry after the time in Retry-After");

            // then once the held commands have their answer (here the reply timeout's 503), starts go through again
            assertThat(held.stream().map(CompletableFuture::join).toList()).containsOnly(503);
        }
        bounded.post().uri("/api/v1/orders").contentType(MediaType.APPLICATION_JSON).bodyValue(ORDER).exchange()
                .expectStatus().isCreated();
    }

    private static WebTestClient.ResponseSpec postOrder() {
        return http.post().uri("/api/v1/orders").contentType(MediaType.APPLICATION_JSON).bodyValue(ORDER).exchange();
    }

    private static void commitAt(long offset) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition partition : partitions().keySet()) {
            offsets.put(partition, new OffsetAndMetadata(offset));
        }
        admin.alterConsumerGroupOffsets(GROUP, offsets).all().get();
    }

    private static void commitAtEnd() throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        admin.listOffsets(partitions()).all().get()
                .forEach((partition, end) -> offsets.put(partition, new OffsetAndMetadata(end.offset())));
        admin.alterConsumerGroupOffsets(GROUP, offsets).all().get();
    }

    private static Map<TopicPartition, OffsetSpec> partitions() throws Exception {
        Map<TopicPartition, OffsetSpec> partitions = new HashMap<>();
        admin.describeTopics(List.of(Topics.ORDER_COMMANDS.name())).allTopicNames().get()
                .get(Topics.ORDER_COMMANDS.name()).partitions()
                .forEach(p -> partitions.put(new TopicPartition(Topics.ORDER_COMMANDS.name(), p.partition()),
                        OffsetSpec.latest()));
        return partitions;
    }
}
