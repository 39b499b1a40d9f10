package io.orderflow.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.kafka.testing.TestKafka;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.web.reactive.server.WebTestClient;

/** The gateway started the way {@code main} and the standalone launcher start it: settings from gateway.yaml. */
class GatewayApplicationTest {

    @Test
    void starts_from_its_own_config_file_and_answers_health() {
        try (ConfigurableApplicationContext context = GatewayApplication.application().run(
                "--server.port=0", "--orderflow.kafka.bootstrap-servers=" + TestKafka.bootstrapServers())) {
            GatewayProperties settings = context.getBean(GatewayProperties.class);
            assertThat(settings.processorUrl()).isEqualTo(
                    System.getenv().getOrDefault("PROCESSOR_URL", "http://localhost:8081"));
            assertThat(settings.replyTimeout()).isEqualTo(Duration.ofSeconds(10));
            assertThat(context.getEnvironment().getProperty("springdoc.api-docs.path")).isEqualTo("/api/v1/openapi.json");

            // as every other gateway client of the tests: springdoc builds the document at its first request, which
            // took 9.8 s at a load average of 70 on the 2-core machine, past the client's default of 5 s
            WebTestClient http = WebTestClient.bindToServer()
                    .baseUrl("http://localhost:" + context.getEnvironment().getProperty("local.server.port"))
                    .responseTimeout(Duration.ofSeconds(20)).build();
            http.get().uri("/health").exchange().expectStatus().isOk()
                    .expectBody().json("{\"ok\": true, \"service\": \"gateway\"}", true);
            http.get().uri("/api/v1/openapi.json").exchange().expectStatus().isOk()
                    .expectBody().jsonPath("$.openapi").isEqualTo("3.1.0");
        }
    }
}
