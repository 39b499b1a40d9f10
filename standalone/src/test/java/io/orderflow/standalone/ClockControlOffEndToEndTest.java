package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.schemas.topics.Topics;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Without {@code CLOCK_CONTROL} (the default), the clock routes answer as routes that do not exist, and nothing of
 * clock control is there: no clock topic on the broker.
 */
@ExtendWith(SharedStandalone.class)
class ClockControlOffEndToEndTest {

    @Test
    void the_clock_routes_answer_404_and_the_system_has_no_clock_topic(StandaloneSystem system) throws Exception {
        WebTestClient http = SharedStandalone.client(system);
        http.get().uri("/api/v1/clock").exchange().expectStatus().isNotFound()
                .expectBody().json("{\"error\": \"Not found\"}", true);
        http.post().uri("/api/v1/clock").contentType(MediaType.APPLICATION_JSON).bodyValue("{\"advanceBy\": \"P2D\"}")
                .exchange().expectStatus().isNotFound().expectBody().json("{\"error\": \"Not found\"}", true);
        http.delete().uri("/api/v1/clock").exchange().expectStatus().isNotFound();

        try (Admin admin = Admin.create(Map.<String, Object>of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, system.bootstrapServers()))) {
            assertThat(admin.listTopics().names().get()).contains(Topics.ORDER_COMMANDS.name())
                    .doesNotContain(Topics.CLOCK.name());
        }
        assertThat(http.get().uri("/api/v1/team/audit?limit=200").exchange().expectStatus().isOk()
                .expectBody(String.class).returnResult().getResponseBody()).doesNotContain("clock.");
    }
}
