package io.orderflow.dispatcher.dispatch;

import static io.orderflow.dispatcher.dispatch.DispatcherHttp.event;
import static io.orderflow.dispatcher.dispatch.DispatcherHttp.newOrderId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.stripe.exception.SignatureVerificationException;
import com.stripe.model.Event;
import com.stripe.net.Webhook;
import io.orderflow.dispatcher.dispatch.DispatcherHttp.Answer;
import io.orderflow.dispatcher.dispatch.TestReceiver.Received;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

/**
 * Our signature header is Stripe's: {@code t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>}, with one
 * {@code v1} per secret while a secret is rotated. So a receiver can verify deliveries with stripe-java's own
 * verifier, handing it the {@code x-service-signature} header where Stripe sends {@code Stripe-Signature}: shown here
 * on real deliveries received on loopback, before, during and after a rotation's grace period (10 s here).
 */
class StripeVerificationTest {

    private static final Duration GRACE = Duration.ofSeconds(10);
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final long TOLERANCE_SECONDS = 300;

    @RegisterExtension
    static final DispatcherHttp dispatcher = new DispatcherHttp(
            "--orderflow.dispatcher.rotation-grace=" + GRACE.toMillis() + "ms");

    @Test
    void stripesVerifierAcceptsEitherSecretDuringTheGracePeriodAndOnlyTheNewOneAfter() throws Exception {
        try (TestReceiver receiver = TestReceiver.answering()) {
            JsonNode created = dispatcher.subscribeForSecret(receiver, null);
            String subscription = created.get("subscription").get("id").asString();
            String oldSecret = created.get("secret").asString();
            receiver.verifyWith(oldSecret);

            // Before any rotation: one v1, Stripe's verifier and its event parser take the delivery as it came.
            dispatcher.publish(event("order.paid", newOrderId(), "ord.1:pay:1", null), null);
            await().atMost(WAIT).until(() -> receiver.received().size() == 1);
            Received first = receiver.received().getFirst();
            assertThat(first.signature()).matches("t=\\d+,v1=[0-9a-f]{64}");
            assertThat(stripeAccepts(first, oldSecret)).isTrue();
            Event parsed = Webhook.constructEvent(body(first), first.signature(), oldSecret, TOLERANCE_SECONDS);
            assertThat(parsed.getId()).isEqualTo(first.deliveryId());

            // During the grace period: two v1 over one t, and Stripe's verifier accepts either secret.
            Answer rotated = dispatcher.call("POST", "/internal/subscriptions/" + subscription + "/rotate-secret",
                    null);
            Instant rotatedBy = Instant.now();
            String newSecret = rotated.body().get("secret").asString();
            receiver.verifyWith(newSecret);
            dispatcher.publish(event("order.shipped", newOrderId(), "ord.1:ship:2", null), null);
            await().atMost(WAIT).until(() -> receiver.received().size() == 2);
            Received during = receiver.received().get(1);
            assertThat(during.at()).isBefore(rotatedBy.plus(GRACE));
            assertThat(during.signature()).matches("t=\\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}");
            assertThat(stripeAccepts(during, newSecret)).isTrue();
            assertThat(stripeAccepts(during, oldSecret)).isTrue();
            assertThat(stripeAccepts(during, "whsec_" + "0".repeat(64))).isFalse();

            // After it: the new secret alone.
            await().atMost(GRACE.plusSeconds(2)).until(() -> Instant.now().isAfter(rotatedBy.plus(GRACE)));
            dispatcher.publish(event("order.completed", newOrderId(), "ord.1:end:3", null), null);
            await().atMost(WAIT).until(() -> receiver.received().size() == 3);
            Received after = receiver.received().get(2);
            assertThat(after.signature()).matches("t=\\d+,v1=[0-9a-f]{64}");
            assertThat(stripeAccepts(after, newSecret)).isTrue();
            assertThat(stripeAccepts(after, oldSecret)).isFalse();
            assertThatThrownBy(() -> Webhook.constructEvent(body(after), after.signature(), oldSecret,
                    TOLERANCE_SECONDS)).isInstanceOf(SignatureVerificationException.class);
        }
    }

    /** Stripe's check: a {@code v1} matching HMAC-SHA256 of {@code t.payload} with the secret, {@code t} recent. */
    private static boolean stripeAccepts(Received delivery, String secret) {
        try {
            return Webhook.Signature.verifyHeader(body(delivery), delivery.signature(), secret, TOLERANCE_SECONDS);
        } catch (SignatureVerificationException e) {
            return false;
        }
    }

    private static String body(Received delivery) {
        return new String(delivery.rawBody(), StandardCharsets.UTF_8);
    }
}
