package io.orderflow.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.KafkaSettings;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.runner.flows.FlowFiles;
import io.orderflow.runner.flows.FlowPublisher;
import io.orderflow.runner.flows.FlowValidator;
import io.orderflow.runner.nodes.NodeCatalogue;
import io.orderflow.schemas.flows.FlowRecord;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import io.orderflow.schemas.topics.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.node.ObjectNode;

/**
 * The one real-broker test: the runner app seeds the flows idempotently and runs the walking-skeleton order from a
 * StartRun on {@code node-tasks} to {@code completed} on {@code run-reports}.
 */
@Tag("docker")
class FlowRunnerKafkaTest {

    @Test
    void seedsFlowsAndRunsAStorefrontOrderToCompleted() throws Exception {
        String bootstrap = TestKafka.containerBootstrapServers();
        String[] args = {
                "--server.port=0",
                "--orderflow.kafka.bootstrap-servers=" + bootstrap,
                "--orderflow.data-dir=" + TestKafka.uniqueStateDir("runner-data"),
                "--orderflow.streams.application-id=" + TestKafka.uniqueApplicationId("runner-it")};
        FlowPublisher publisher = new FlowPublisher(new KafkaSettings(bootstrap),
                new FlowValidator(NodeCatalogue.standard()), Clock.systemUTC());

        try (ConfigurableApplicationContext app = FlowRunnerApplication.application().run(args)) {
            // the test broker's flows topic is shared with other test classes, which publish flows of their own
            // the seeding's transaction is committed when the app has started, but a reader sees it only once its
            // markers are written, which the broker does after the commit's answer
            Map<String, FlowRecord> flows = await().atMost(Duration.ofSeconds(30)).until(publisher::readAll,
                    all -> all.keySet().containsAll(FlowFiles.SEEDED));
            assertThat(flows).containsKeys(FlowFiles.SEEDED.toArray(String[]::new));
            assertThat(FlowFiles.SEEDED).allSatisfy(id -> assertThat(flows.get(id).publishedVersion()).isEqualTo(1));

            assertThat(publisher.seed(FlowFiles.seeded())).as("seeding again publishes nothing").isEmpty();

            ObjectNode order = (ObjectNode) Json.MAPPER.readTree("""
                    {"id":"ord_it1","type":"storefront_order","title":"Storefront order · ord_it1","currency":"USD",
                     "lines":[{"sku":"ANY","qty":1,"unitPrice":3.5}],"meta":{}}""");
            var flow = flows.get("storefront_order").resolve(null).orElseThrow();
            try (var producer = new KafkaProducer<>(producerProps(bootstrap), Topics.NODE_TASKS.keySerde().serializer(),
                    Topics.NODE_TASKS.valueSerde().serializer())) {
                producer.send(new ProducerRecord<>(Topics.NODE_TASKS.name(), "ord_it1",
                        new NodeTask.StartRun("ord_it1", "ord_it1.1", flow, order, Json.object()))).get();
            }

            List<RunReport> reports = new ArrayList<>();
            try (var consumer = new KafkaConsumer<>(consumerProps(bootstrap), Topics.RUN_REPORTS.keySerde().deserializer(),
                    Topics.RUN_REPORTS.valueSerde().deserializer())) {
                consumer.subscribe(List.of(Topics.RUN_REPORTS.name()));
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    consumer.poll(Duration.ofMillis(200)).forEach(r -> reports.addAll(r.value().unpacked()));
                    return reports.stream().anyMatch(r -> r instanceof RunReport.Progress p
                            && p.status() == OrderStatus.COMPLETED);
                });
            }
            assertThat(reports).allSatisfy(r -> assertThat(r.orderId()).isEqualTo("ord_it1"));

            // the command-line publish appends version 2 and keeps version 1 for orders pinned to it
            Path file = Files.createTempFile("storefront", ".json");
            Files.writeString(file, Json.write(FlowFiles.builtIn("storefront_order")));
            assertThat(FlowRunnerApplication.publish(file.toString(),
                    new String[] {"--orderflow.kafka.bootstrap-servers=" + bootstrap})).isZero();
            FlowRecord republished = publisher.readAll().get("storefront_order");
            assertThat(republished.publishedVersion()).isEqualTo(2);
            assertThat(republished.versions()).extracting(v -> v.version()).containsExactly(1, 2);
            assertThat(republished.resolve(1)).contains(flow);
        }
    }

    private static Properties producerProps(String bootstrap) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return props;
    }

    private static Properties consumerProps(String bootstrap) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, TestKafka.uniqueApplicationId("runner-it-reader"));
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return props;
    }
}
