package io.orderflow.gateway.webhooks;

import io.orderflow.gateway.GatewayProperties;
import io.orderflow.gateway.api.ApiError;
import io.orderflow.gateway.api.ApiException;
import io.orderflow.gateway.commands.CommandBus;
import io.orderflow.gateway.commands.CommandReplies;
import io.orderflow.gateway.commands.OrderCommands;
import io.orderflow.gateway.orders.OrderIds;
import io.orderflow.gateway.validation.RequestSchema;
import io.orderflow.gateway.validation.RequestValidator;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.signing.WebhookSignature;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;

/**
 * {@code POST /api/v1/webhooks/events}: a business event from an outside system, authenticated by an HMAC signature
 * over the raw body with {@code WEBHOOK_SECRET} instead of a token. Delivered like any event, except that "no node
 * is waiting yet" is a 409, so the sender retries later.
 */
@RestController
class SignedEventsController {

    static final String SIGNATURE_HEADER = "X-Service-Signature";

    private final GatewayProperties settings;
    private final RequestValidator validator;
    private final CommandBus commands;
    private final Clock clock;

    SignedEventsController(GatewayProperties settings, RequestValidator validator, CommandBus commands, Clock clock) {
        this.settings = settings;
        this.validator = validator;
        this.commands = commands;
        this.clock = clock;
    }

    @Operation(operationId = "receiveSignedEvent", security = {})
    @PostMapping("/api/v1/webhooks/events")
    Mono<ResponseEntity<JsonNode>> receive(
            @Parameter(description = "t=<unix seconds>,v1=<hex HMAC-SHA256(WEBHOOK_SECRET, '<t>.<raw body>')>; "
                    + "t within 5 minutes of the server clock")
            @RequestHeader(name = SIGNATURE_HEADER, required = false) String signature,
            @RequestBody(required = false) byte[] body) {
        String secret = settings.inboundSecret().orElseThrow(() -> new ApiException(HttpStatus.SERVICE_UNAVAILABLE,
                ApiError.of("Signed events are disabled: WEBHOOK_SECRET is not set"), Map.of()));
        byte[] raw = body == null ? new byte[0] : body;
        WebhookSignature.Result verdict = WebhookSignature.verify(secret, signature, raw, clock.instant());
        if (!verdict.valid()) {
            throw new ApiException(HttpStatus.UNAUTHORIZED, ApiError.of(unauthorized(verdict)), Map.of());
        }
        JsonNode request = validator.validate(RequestSchema.SIGNED_EVENT, new String(raw, StandardCharsets.UTF_8));
        String orderId = request.get("orderId").asString();
        if (!OrderIds.isOrderId(orderId)) {
            throw ApiException.notFound("Order " + orderId + " not found");
        }
        return commands.send(OrderCommands.deliver(orderId, request), Caller.SIGNED_REQUEST)
                .map(SignedEventsController::answer);
    }

    /** The agent's reply, except that an event nobody waits for yet is a conflict the sender can retry. */
    private static ResponseEntity<JsonNode> answer(CommandReply reply) {
        JsonNode body = CommandReplies.body(reply);
        int status = CommandReplies.status(reply);
        boolean undelivered = status == HttpStatus.OK.value() && body.has("delivered")
                && !body.get("delivered").asBoolean();
        return ResponseEntity.status(undelivered ? HttpStatus.CONFLICT.value() : status).body(body);
    }

    private static String unauthorized(WebhookSignature.Result verdict) {
        return switch (verdict) {
            case MISSING -> "Missing " + SIGNATURE_HEADER + " header";
            case MALFORMED -> "Malformed " + SIGNATURE_HEADER + " header: expected t=<unix seconds>,v1=<hex digest>";
            case STALE -> "Signature timestamp is more than 5 minutes away from the server clock";
            case MISMATCH -> "Signature does not match the body";
            case VALID -> throw new IllegalArgumentException("A valid signature is not unauthorized");
        };
    }
}
