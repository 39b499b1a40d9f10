package io.orderflow.gateway;

import io.orderflow.gateway.caller.CallerResolver;
import io.orderflow.gateway.caller.Access;
import io.swagger.v3.oas.annotations.Operation;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.contributor.Status;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@code GET /health}: the contract's {@code { ok: true, service }} for anyone. An operator (credentials sent with
 * the request) also gets {@code status}, {@code ok} while the readiness group is UP and {@code degraded} while a part
 * is not ready, and {@code readiness}, the group's parts as {@code /actuator/health/readiness} shows them (in the
 * standalone system the services behind the gateway too). A load balancer probes {@code /actuator/health/readiness}.
 */
@RestController
class HealthController {

    private static final Map<String, Object> CONTRACT = Map.of("ok", true, "service", "gateway");

    private final CallerResolver callers;
    private final ObjectProvider<HealthEndpoint> health;

    HealthController(CallerResolver callers, ObjectProvider<HealthEndpoint> health) {
        this.callers = callers;
        this.health = health;
    }

    @Operation(operationId = "health")
    @GetMapping("/health")
    Mono<Map<String, Object>> health(ServerWebExchange exchange) {
        return exchange.getPrincipal()
                .flatMap(principal -> callers.resolve(exchange))
                .filter(Access::seesReadiness)
                // the readiness checks may wait on Kafka (up to 2 s): off the event loop
                .flatMap(operator -> Mono.fromCallable(this::forOperator).subscribeOn(Schedulers.boundedElastic()))
                .onErrorResume(e -> Mono.just(CONTRACT))
                .defaultIfEmpty(CONTRACT);
    }

    private Map<String, Object> forOperator() {
        HealthEndpoint endpoint = health.getIfAvailable();
        if (endpoint == null) {
            return CONTRACT;
        }
        HealthDescriptor readiness = endpoint.healthForPath("readiness");
        Map<String, Object> body = new LinkedHashMap<>(CONTRACT);
        body.put("status", Status.UP.equals(readiness.getStatus()) ? "ok" : "degraded");
        body.put("readiness", readiness);
        return body;
    }
}
