package io.orderflow.processor.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.observability.BrokerReachability;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.processor.OrderProcessorApplication;
import io.orderflow.processor.streams.OrderStreams;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The processor's readiness tells the truth: {@code /actuator/health/readiness} answers 200 only once the order
 * agent's Kafka Streams application is RUNNING on a real broker, and 503 (naming the state) as soon as it is not;
 * liveness stays UP, so a probe restarts nothing. Its own port serves its meters, Kafka Streams' among them.
 */
class ProcessorReadinessTest {

    private static final HttpClient http = HttpClient.newHttpClient();

    @Test
    void readiness_is_up_while_the_streams_app_runs_and_down_once_it_does_not() throws Exception {
        try (ConfigurableApplicationContext app = OrderProcessorApplication.application().run(
                "--server.port=0",
                "--orderflow.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
                "--orderflow.data-dir=" + TestKafka.uniqueStateDir("processor-readiness"),
                "--orderflow.streams.application-id=" + TestKafka.uniqueApplicationId("processor-readiness"),
                "--orderflow.streams.advertised-host=127.0.0.1")) {
            int port = app.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
            KafkaStreams streams = app.getBean(OrderStreams.class).streams().orElseThrow();

            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
                HttpResponse<String> ready = get(port, "/actuator/health/readiness");
                assertThat(ready.statusCode()).isEqualTo(200);
                assertThat(ready.body()).contains("\"status\":\"UP\"");
            });
            HttpResponse<String> metrics = get(port, "/actuator/prometheus");
            assertThat(metrics.body()).contains("kafka_stream_thread_process_total{")
                    .contains("service=\"order-processor\"");

            streams.close(Duration.ofSeconds(10));

            HttpResponse<String> notReady = get(port, "/actuator/health/readiness");
            assertThat(notReady.statusCode()).isEqualTo(503);
            assertThat(notReady.body()).contains("\"status\":\"DOWN\"");
            assertThat(app.getBean("streamsHealthIndicator", org.springframework.boot.health.contributor
                    .HealthIndicator.class).health().getDetails()).containsEntry("state", "NOT_RUNNING");
            assertThat(get(port, "/actuator/health/liveness").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void a_broker_nobody_answers_on_is_not_ready() {
        BrokerReachability broker = new BrokerReachability("127.0.0.1:1");
        try {
            assertThat(broker.health().getStatus()).isEqualTo(Status.DOWN);
        } finally {
            broker.destroy();
        }
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
