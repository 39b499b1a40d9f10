package io.orderflow.gateway.clock;

import io.orderflow.gateway.caller.Access;
import io.orderflow.gateway.validation.RequestSchema;
import io.orderflow.gateway.validation.RequestValidator;
import io.orderflow.schemas.requests.ClockRules;
import io.orderflow.schemas.requests.WebhookReplayRules;
import io.swagger.v3.oas.annotations.Operation;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;

/**
 * The service clock, for test systems started with {@code CLOCK_CONTROL=true} (docs/clock.md): read it, move it
 * forward (by a duration, or to an instant), put it back to real time. With clock control off every route answers 404,
 * as an unknown route does, and nothing is read or written.
 */
@RestController
class ClockController {

    private static final String OFF = " Answers 404 unless the service runs with CLOCK_CONTROL=true.";

    private final ClockControl clock;
    private final Access access;
    private final RequestValidator validator;

    ClockController(ClockControl clock, Access access, RequestValidator validator) {
        this.clock = clock;
        this.access = access;
        this.validator = validator;
    }

    @Operation(operationId = "getClock", summary = "The service time and its offset from real time",
            description = "The time every service decides by: approval deadlines and escalations, wait timeouts, the "
                    + "runner's sleeps and retries, the daily replenishment." + OFF)
    @GetMapping("/api/v1/clock")
    Mono<ServiceClockView> read() {
        return Mono.fromSupplier(clock::now);
    }

    @Operation(operationId = "setClock", summary = "Move the service clock forward (operator)",
            description = "By advanceBy (an ISO-8601 duration, at most P366D) or to pinAt (an instant not before the "
                    + "current service time, at most P366D after it). Timers that fall due fire within about a second "
                    + "on every service. Recorded in the audit log." + OFF)
    @PostMapping("/api/v1/clock")
    Mono<ServiceClockView> set(@RequestBody(required = false) String body, ServerWebExchange exchange) {
        return Mono.defer(() -> {
            clock.now(); // 404 before the body is looked at, with clock control off
            return access.caller(exchange);
        }).flatMap(caller -> {
            JsonNode request = validator.validate(RequestSchema.SET_CLOCK, body);
            JsonNode advanceBy = request.get("advanceBy");
            return advanceBy != null ? clock.advance(caller, ClockRules.duration(advanceBy.asString()))
                    : clock.pin(caller, WebhookReplayRules.instant(request.get("pinAt").asString()));
        });
    }

    @Operation(operationId = "resetClock", summary = "Put the service clock back to real time (operator)",
            description = "Timers set while the clock was ahead fire when real time reaches them. Recorded in the "
                    + "audit log." + OFF)
    @DeleteMapping("/api/v1/clock")
    Mono<ServiceClockView> reset(ServerWebExchange exchange) {
        return Mono.defer(() -> {
            clock.now();
            return access.caller(exchange);
        }).flatMap(clock::reset);
    }
}
