package io.orderflow.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.json.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The webhook-dispatcher started alone with {@code INTERNAL_TOKEN}: its subscription API, which creates a subscription
 * receiving every order event, answers 401 without the token and serves the caller that sends it.
 */
class DispatcherInternalTokenTest {

    private static final String TOKEN = "dispatcher-token-" + UUID.randomUUID();

    @Test
    void theSubscriptionApiNeedsTheInternalToken() throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        try (ConfigurableApplicationContext app = WebhookDispatcherApplication.application().run(
                "--orderflow.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
                "--server.port=0",
                "--orderflow.dispatcher.topic-partitions=3",
                "--orderflow.dispatcher.topic-replication=1",
                "--orderflow.dispatcher.group-id=dispatcher-token-" + UUID.randomUUID(),
                "--orderflow.internal.token=" + TOKEN)) {
            String base = "http://127.0.0.1:" + ((WebServerApplicationContext) app).getWebServer().getPort();
            URI subscriptions = URI.create(base + "/internal/subscriptions");
            String subscription = "{\"url\": \"http://127.0.0.1:9/hook\", \"events\": [\"*\"]}";

            HttpResponse<String> refused = http.send(HttpRequest.newBuilder(subscriptions)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(subscription)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).isEqualTo(401);
            assertThat(refused.body()).contains("X-Internal-Token");
            assertThat(http.send(HttpRequest.newBuilder(subscriptions)
                    .header("X-Internal-Token", "wrong").build(), HttpResponse.BodyHandlers.ofString()).statusCode())
                    .isEqualTo(401);

            HttpResponse<String> created = http.send(HttpRequest.newBuilder(subscriptions)
                    .header("Content-Type", "application/json").header("X-Internal-Token", TOKEN)
                    .POST(HttpRequest.BodyPublishers.ofString(subscription)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            String id = Json.MAPPER.readTree(created.body())
                    .path("subscription").path("id").asString();
            assertThat(http.send(HttpRequest.newBuilder(subscriptions)
                    .header("X-Internal-Token", TOKEN).build(), HttpResponse.BodyHandlers.ofString()).statusCode())
                    .isEqualTo(200);
            // gone again, so no other test's events are delivered to it
            assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/internal/subscriptions/" + id))
                    .header("X-Internal-Token", TOKEN).DELETE().build(), HttpResponse.BodyHandlers.ofString())
                    .statusCode()).isEqualTo(200);
        }
    }
}
