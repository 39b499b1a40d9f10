package io.orderflow.dispatcher.subscriptions;

import io.orderflow.dispatcher.deliveries.Delivery;
import io.orderflow.dispatcher.deliveries.DeliveryStore;
import io.orderflow.dispatcher.deliveries.SubscriptionHealth;
import io.orderflow.dispatcher.dispatch.AddressPolicy;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * The internal subscription API; the gateway proxies {@code /api/v1/webhook-subscriptions} here after checking the
 * caller's role.
 */
@RestController
@RequestMapping(path = "/internal/subscriptions", produces = MediaType.APPLICATION_JSON_VALUE)
public class SubscriptionController {

    private static final HexFormat HEX = HexFormat.of();

    /** A refused delivery's error as shown without {@code reasons}: it names no address. */
    static final String REFUSED_FOR_VIEWERS = "refused: the subscriber's address is not allowed";

    private final SubscriptionStore subscriptions;
    private final DeliveryStore deliveries;
    private final SubscriptionHealth health;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    public SubscriptionController(SubscriptionStore subscriptions, DeliveryStore deliveries,
                                  SubscriptionHealth health, Clock clock) {
        this.subscriptions = subscriptions;
        this.deliveries = deliveries;
        this.health = health;
        this.clock = clock;
    }

    public record Created(Subscription.View subscription, String secret) {
    }

    @PostMapping(consumes = MediaType.ALL_VALUE)
    public Mono<ResponseEntity<Object>> create(@RequestBody(required = false) String body) {
        return switch (SubscriptionRequest.parse(body)) {
            case SubscriptionRequest.Invalid invalid -> Mono.just(ResponseEntity.badRequest().body(
                    invalid.issues().isEmpty()
                            ? Map.of("error", invalid.error())
                            : Map.of("error", invalid.error(), "issues", invalid.issues())));
            case SubscriptionRequest.Valid valid -> {
                Subscription subscription = new Subscription("whs_" + randomHex(12), valid.url(), valid.events(),
                        clock.millis(), newSecret());
                yield Mono.fromFuture(() -> subscriptions.save(subscription))
                        .map(saved -> ResponseEntity.status(HttpStatus.CREATED)
                                .body(new Created(saved.view(), saved.secret())));
            }
        };
    }

    /**
     * A new secret for the subscription, answered here only. Deliveries are signed with both the new and the replaced
     * secret for {@code WEBHOOK_ROTATION_GRACE}, then with the new one alone; a second rotation within that time
     * drops the oldest.
     */
    @PostMapping("/{id}/rotate-secret")
    public Mono<ResponseEntity<Object>> rotateSecret(@PathVariable String id) {
        Optional<Subscription> subscription = subscriptions.find(id);
        if (subscription.isEmpty()) {
            return Mono.just(notFound(id));
        }
        Subscription rotated = subscription.get().rotated(newSecret(), clock.instant());
        return Mono.fromFuture(() -> subscriptions.save(rotated))
                .map(saved -> ResponseEntity.ok(new Created(saved.view(), saved.secret())));
    }

    /** Every subscription with its health ({@code ok} or {@code failing}) and {@code lastSuccessAt}. */
    @GetMapping
    public Map<String, List<Subscription.Shown>> list() {
        return Map.of("subscriptions", subscriptions.all().stream()
                .map(subscription -> subscription.shown(health.of(subscription.id())))
                .toList());
    }

    /** One subscription as the list shows it, as {@code {subscription}}. */
    @GetMapping("/{id}")
    public ResponseEntity<Object> get(@PathVariable String id) {
        return subscriptions.find(id)
                .<ResponseEntity<Object>>map(subscription -> ResponseEntity.ok(
                        Map.of("subscription", subscription.shown(health.of(id)))))
                .orElseGet(() -> notFound(id));
    }

    @DeleteMapping("/{id}")
    public Mono<ResponseEntity<Object>> delete(@PathVariable String id) {
        if (subscriptions.find(id).isEmpty()) {
            return Mono.just(notFound(id));
        }
        return Mono.fromFuture(() -> subscriptions.delete(id))
                .doOnSuccess(ignored -> health.forget(id))
                .thenReturn(ResponseEntity.ok(Map.of("ok", true)));
    }

    /**
     * The recent deliveries. Why a delivery was refused names the address its host resolved to, which tells a reader
     * about the network behind the dispatcher: only with {@code reasons=true} (the gateway asks so for operators) is
     * it shown; otherwise such an error reads {@value #REFUSED_FOR_VIEWERS}.
     */
    @GetMapping("/{id}/deliveries")
    public ResponseEntity<Object> deliveries(@PathVariable String id,
                                             @RequestParam(defaultValue = "false") boolean reasons) {
        if (subscriptions.find(id).isEmpty()) {
            return notFound(id);
        }
        return ResponseEntity.ok(Map.of("deliveries", deliveries.recent(id).stream()
                .map(Delivery::view)
                .map(view -> reasons ? view : withoutRefusalReason(view))
                .toList()));
    }

    private static Delivery.View withoutRefusalReason(Delivery.View view) {
        if (view.lastError() == null || !view.lastError().startsWith(AddressPolicy.REFUSED)) {
            return view;
        }
        return new Delivery.View(view.id(), view.event(), view.orderId(), view.payload(), view.status(),
                view.attempts(), view.responseStatus(), REFUSED_FOR_VIEWERS, view.createdAt(), view.deliveredAt());
    }

    static ResponseEntity<Object> notFound(String id) {
        return ResponseEntity.status(HttpStatus.NOT_FOUND).body(Map.of("error", "Subscription " + id + " not found"));
    }

    private String newSecret() {
        return "whsec_" + randomHex(32);
    }

    private String randomHex(int bytes) {
        byte[] value = new byte[bytes];
        random.nextBytes(value);
        return HEX.formatHex(value);
    }
}
