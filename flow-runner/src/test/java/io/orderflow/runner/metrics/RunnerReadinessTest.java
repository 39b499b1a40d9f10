package io.orderflow.runner.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.runner.FlowRunnerApplication;
import io.orderflow.runner.RunnerStreams;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The runner alone serves its health and meters on its port: readiness is 200 once its Kafka Streams application is
 * RUNNING on a real broker and 503 once it is not; the scrape carries its Kafka Streams meters and the node execution
 * counters of every catalogue type, tagged {@code service="flow-runner"}.
 */
class RunnerReadinessTest {

    private static final HttpClient http = HttpClient.newHttpClient();

    @Test
    void readiness_follows_the_streams_app_and_the_scrape_has_its_meters() throws Exception {
        try (ConfigurableApplicationContext app = FlowRunnerApplication.application().run(
                "--server.port=0",
                "--orderflow.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
                "--orderflow.data-dir=" + TestKafka.uniqueStateDir("runner-readiness"),
                "--orderflow.streams.application-id=" + TestKafka.uniqueApplicationId("runner-readiness"))) {
            int port = app.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
            KafkaStreams streams = app.getBean(RunnerStreams.class).streams();

            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
                assertThat(get(port, "/actuator/health/readiness").statusCode()).isEqualTo(200);
            });
            String scrape = get(port, "/actuator/prometheus").body();
            assertThat(scrape).contains("kafka_stream_thread_process_total{")
                    .contains("orderflow_nodes_executions_total{result=\"done\",service=\"flow-runner\","
                            + "type=\"commerce.charge\"}");

            streams.close(Duration.ofSeconds(10));

            HttpResponse<String> notReady = get(port, "/actuator/health/readiness");
            assertThat(notReady.statusCode()).isEqualTo(503);
            assertThat(notReady.body()).contains("\"status\":\"DOWN\"");
        }
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
