package io.orderflow.gateway.webhooks;

import io.orderflow.gateway.GatewayProperties;
import io.orderflow.gateway.caller.Access;
import io.orderflow.gateway.internal.InternalApi;
import io.orderflow.gateway.validation.RequestSchema;
import io.orderflow.gateway.validation.RequestValidator;
import io.orderflow.internal.InternalToken;
import io.orderflow.schemas.json.Json;
import io.swagger.v3.oas.annotations.Operation;
import java.time.Duration;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The webhook subscription routes. The gateway checks the role and the body (its schema and the rules beyond it, the
 * same shared check the dispatcher runs, so an invalid body is never forwarded); the webhook-dispatcher owns the
 * subscriptions and is called over its internal API.
 */
@RestController
@RequestMapping("/api/v1/webhook-subscriptions")
class WebhookSubscriptionsController {

    private static final Duration RESEND_TIMEOUT = Duration.ofSeconds(30);

    private final Access access;
    private final RequestValidator validator;
    private final InternalApi dispatcher;
    /**
     * For redeliver and replay, which answer only once the subscriber has (up to the dispatcher's 10 s request
     * timeout) or the window is read: a longer wait than other calls, so the gateway does not give up on a request
     * that is being carried out.
     */
    private final InternalApi resend;

    WebhookSubscriptionsController(Access access, RequestValidator validator, GatewayProperties settings,
                                   InternalToken token) {
        this.access = access;
        this.validator = validator;
        this.dispatcher = new InternalApi(settings.dispatcherUrl(), "webhook dispatcher", token);
        this.resend = new InternalApi(settings.dispatcherUrl(), "webhook dispatcher", token, RESEND_TIMEOUT);
    }

    @Operation(operationId = "listWebhookSubscriptions")
    @GetMapping
    Mono<ResponseEntity<String>> list() {
        return dispatcher.get(uri -> uri.path("/internal/subscriptions").build());
    }

    @Operation(operationId = "createWebhookSubscription")
    @PostMapping
    Mono<ResponseEntity<String>> create(@RequestBody(required = false) String body) {
        return Mono.fromCallable(() -> Json.write(validator.validate(RequestSchema.CREATE_WEBHOOK_SUBSCRIPTION, body)))
                .flatMap(valid -> dispatcher.exchange(HttpMethod.POST,
                        uri -> uri.path("/internal/subscriptions").build(), valid));
    }

    /** One subscription as the list shows it, with its {@code health} and {@code lastSuccessAt}. */
    @Operation(operationId = "getWebhookSubscription")
    @GetMapping("/{id}")
    Mono<ResponseEntity<String>> get(@PathVariable String id) {
        return dispatcher.get(uri -> uri.path("/internal/subscriptions/{id}").build(id));
    }

    @Operation(operationId = "deleteWebhookSubscription")
    @DeleteMapping("/{id}")
    Mono<ResponseEntity<String>> delete(@PathVariable String id) {
        return dispatcher.exchange(HttpMethod.DELETE, uri -> uri.path("/internal/subscriptions/{id}").build(id), null);
    }

    /**
     * A new secret, answered once as {@code {subscription, secret}}; deliveries carry a signature with the old secret
     * next to the new one for {@code WEBHOOK_ROTATION_GRACE} (24 h by default), then with the new one only.
     */
    @Operation(operationId = "rotateWebhookSubscriptionSecret")
    @PostMapping("/{id}/rotate-secret")
    Mono<ResponseEntity<String>> rotateSecret(@PathVariable String id) {
        return dispatcher.exchange(HttpMethod.POST,
                uri -> uri.path("/internal/subscriptions/{id}/rotate-secret").build(id), null);
    }

    /**
     * Operators see why a delivery was refused (the address its url resolved to); a viewer sees a generic text, so a
     * subscription cannot be used to learn what lies behind the dispatcher.
     */
    @Operation(operationId = "listWebhookDeliveries")
    @GetMapping("/{id}/deliveries")
    Mono<ResponseEntity<String>> deliveries(@PathVariable String id, ServerWebExchange exchange) {
        return access.caller(exchange)
                .flatMap(caller -> dispatcher.get(uri -> uri.path("/internal/subscriptions/{id}/deliveries")
                        .queryParam("reasons", Access.seesDeliveryRefusals(caller))
                        .build(id)));
    }

    /**
     * Sends one settled delivery again, with its id, as a new attempt in its record; answers {@code {delivery}} once
     * the subscriber answered (or the attempt timed out). 409 while the delivery is pending (its retries run).
     */
    @Operation(operationId = "redeliverWebhookDelivery")
    @PostMapping("/{id}/deliveries/{deliveryId}/redeliver")
    Mono<ResponseEntity<String>> redeliver(@PathVariable String id, @PathVariable String deliveryId) {
        return resend.exchange(HttpMethod.POST, uri -> uri
                .path("/internal/subscriptions/{id}/deliveries/{deliveryId}/redeliver")
                .build(id, deliveryId), null);
    }

    /**
     * Sends the subscription every order event of {@code [since, until)} again that its filter matches; answers
     * {@code {count}}. Bounded and rate-limited by the dispatcher (429 with {@code Retry-After}).
     */
    @Operation(operationId = "replayWebhookDeliveries")
    @PostMapping("/{id}/replay")
    Mono<ResponseEntity<String>> replay(@PathVariable String id, @RequestBody(required = false) String body) {
        return Mono.fromCallable(() -> Json.write(validator.validate(RequestSchema.REPLAY_WEBHOOK_DELIVERIES, body)))
                .flatMap(valid -> resend.exchange(HttpMethod.POST,
                        uri -> uri.path("/internal/subscriptions/{id}/replay").build(id), valid));
    }
}
