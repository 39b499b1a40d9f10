package io.orderflow.gateway.batches;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.gateway.orders.OrderIds;
import io.orderflow.gateway.testing.FakeProcessor.FakeOrder;
import io.orderflow.gateway.testing.GatewayDeployment;
import io.orderflow.schemas.commands.CommandEnvelope;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The bounds of batches, on a deployment of its own with {@code BATCH_MAX_ORDERS=3}: a filter that matches more
 * orders now is refused, and so is one batch more than may run at once; refused, nothing is written or sent.
 */
class BatchLimitsTest {

    private static GatewayDeployment deployment;
    private static WebTestClient http;

    @BeforeAll
    static void start() {
        deployment = new GatewayDeployment(null, "--orderflow.batches.max-orders=3");
        http = deployment.startInstance();
    }

    @AfterAll
    static void stop() {
        deployment.close();
    }

    private WebTestClient.ResponseSpec create(String body) {
        return http.post().uri("/api/v1/batches").contentType(MediaType.APPLICATION_JSON).bodyValue(body).exchange();
    }

    private static String waiting(String type) {
        String id = OrderIds.random();
        deployment.processor.put(new FakeOrder(id, type, "fp", "waiting", null, "approval",
                System.currentTimeMillis()));
        return id;
    }

    @Test
    void a_filter_that_matches_more_orders_than_a_batch_may_act_on_is_refused() {
        java.util.List<String> orders = java.util.stream.IntStream.range(0, 4).mapToObj(i -> waiting("subscription"))
                .toList();

        create("{\"filter\": {\"status\": \"waiting\"}, \"action\": \"cancel\", \"reason\": \"x\"}")
                .expectStatus().isBadRequest()
                .expectBody().jsonPath("$.error").value(error -> assertThat((String) error)
                        .startsWith("The filter matches ").endsWith("orders; a batch acts on at most 3. Narrow the filter."));

        assertThat(deployment.processor.received().stream().map(CommandEnvelope::command)
                .filter(command -> orders.contains(command.orderId()))).isEmpty();

    }

    @Test
    void one_batch_more_than_may_run_at_once_is_refused() {
        // batches on orders whose commands go unanswered (the processor away): they keep running, trying again
        int accepted = 0;
        while (true) {
            String order = waiting("reorder");
            deployment.processor.silence(order);
            int status = create("{\"orderIds\": [\"" + order + "\"], \"action\": \"cancel\", \"reason\": \"x\"}")
                    .expectBody().returnResult().getStatus().value();
            if (status != 202) {
                assertThat(status).isEqualTo(409);
                break;
            }
            accepted++;
            assertThat(accepted).as("batches accepted").isLessThanOrEqualTo(BatchProperties.MAX_RUNNING);
        }

        create("{\"orderIds\": [\"" + waiting("reorder") + "\"], \"action\": \"cancel\", \"reason\": \"x\"}")
                .expectStatus().isEqualTo(409)
                .expectBody().jsonPath("$.error").isEqualTo(BatchProperties.MAX_RUNNING
                        + " batches are running, the most at once; stop one or wait for one to end");
        assertThat(deployment.bean(0, Batches.class).running()).isEqualTo(BatchProperties.MAX_RUNNING);
    }
}
