package io.orderflow.dispatcher.resend;

import io.orderflow.schemas.requests.ApiRequest;
import io.orderflow.schemas.requests.RequestValidation;
import io.orderflow.schemas.requests.WebhookReplayRules;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.JsonNode;

/**
 * Sending deliveries again, on the internal API the gateway proxies for operators: one delivery
 * ({@link Redelivery}) or every event of a window ({@link Replays}). Errors have the contract's shape,
 * {@code {error}}.
 */
@RestController
@RequestMapping(path = "/internal/subscriptions", produces = MediaType.APPLICATION_JSON_VALUE)
public class ResendController {

    private final Redelivery redelivery;
    private final Replays replays;

    public ResendController(Redelivery redelivery, Replays replays) {
        this.redelivery = redelivery;
        this.replays = replays;
    }

    /** {@code {delivery}}: the record with this attempt in it; 404 unknown, 409 while it is pending. */
    @PostMapping(path = "/{id}/deliveries/{deliveryId}/redeliver", consumes = MediaType.ALL_VALUE)
    public Mono<ResponseEntity<Object>> redeliver(@PathVariable String id, @PathVariable String deliveryId) {
        return Mono.fromFuture(() -> redelivery.redeliver(id, deliveryId)).map(result -> switch (result) {
            case Redelivery.NotFound notFound -> error(HttpStatus.NOT_FOUND, notFound.error());
            case Redelivery.Conflict conflict -> error(HttpStatus.CONFLICT, conflict.error());
            case Redelivery.Done done -> ResponseEntity.ok(Map.of("delivery", done.delivery().view()));
        });
    }

    /**
     * {@code {count}}: the deliveries queued again. 400 for a body or window that is not allowed, 404 for an unknown
     * subscription, 429 with {@code Retry-After} while the subscription's last replay is under way or too recent.
     */
    @PostMapping(path = "/{id}/replay", consumes = MediaType.ALL_VALUE)
    public Mono<ResponseEntity<Object>> replay(@PathVariable String id,
                                               @RequestBody(required = false) String body) {
        return switch (ApiRequest.REPLAY_WEBHOOK_DELIVERIES.validate(body)) {
            case RequestValidation.Invalid invalid -> Mono.just(ResponseEntity.badRequest()
                    .body(Map.of("error", invalid.error(), "issues", invalid.issues())));
            case RequestValidation.Valid valid -> replay(id, valid.body());
        };
    }

    private Mono<ResponseEntity<Object>> replay(String id, JsonNode body) {
        JsonNode until = body.get("until");
        return Mono.fromCallable(() -> replays.replay(id, WebhookReplayRules.instant(body.get("since").asString()),
                        until == null ? null : WebhookReplayRules.instant(until.asString())))
                .subscribeOn(Schedulers.boundedElastic())
                .<ResponseEntity<Object>>map(result -> switch (result) {
                    case Replays.NotFound notFound -> error(HttpStatus.NOT_FOUND, notFound.error());
                    case Replays.Refused refused -> error(HttpStatus.BAD_REQUEST, refused.error());
                    case Replays.Limited limited -> ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
                            .header(HttpHeaders.RETRY_AFTER, String.valueOf(limited.retryAfterSeconds()))
                            .<Object>body(Map.of("error", limited.error()));
                    case Replays.Done done -> ResponseEntity.ok(Map.of("count", done.count()));
                })
                .onErrorResume(failure -> Mono.just(error(HttpStatus.SERVICE_UNAVAILABLE,
                        "The replay could not be carried out: " + failure.getMessage())));
    }

    private static ResponseEntity<Object> error(HttpStatus status, String message) {
        return ResponseEntity.status(status).body(Map.of("error", message));
    }
}
