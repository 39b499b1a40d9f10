package io.orderflow.gateway;

import io.orderflow.schemas.signing.WebhookSignature;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** Without {@code WEBHOOK_SECRET} the signed endpoint is off: 503, whatever the request. */
class SignedEventsDisabledTest extends GatewayIntegrationTest {

    @DynamicPropertySource
    static void withoutSecret(DynamicPropertyRegistry registry) {
        registry.add("orderflow.gateway.webhook-secret", () -> "");
    }

    @Test
    void the_signed_endpoint_answers_503_while_webhook_secret_is_unset() {
        String body = "{\"orderId\": \"ord_abc\", \"event\": \"payment.received\"}";
        http.post().uri("/api/v1/webhooks/events").contentType(MediaType.APPLICATION_JSON)
                .header("X-Service-Signature", WebhookSignature.sign(WEBHOOK_SECRET, Instant.now(), body))
                .bodyValue(body).exchange()
                .expectStatus().isEqualTo(503)
                .expectBody().json("{\"error\": \"Signed events are disabled: WEBHOOK_SECRET is not set\"}", true);
    }
}
