package io.orderflow.gateway.orders;

import io.orderflow.gateway.caller.Access;
import io.orderflow.gateway.caller.Role;
import io.orderflow.schemas.query.OrderQueries;
import io.swagger.v3.oas.annotations.Operation;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The orders set aside as incidents: a record about each could not be processed, so the order failed with the cause
 * as its reason while its partition moved on ({@link io.orderflow.schemas.model.Incident}).
 */
@RestController
class IncidentsController {

    private final Access access;
    private final ProcessorClient processor;

    IncidentsController(Access access, ProcessorClient processor) {
        this.access = access;
        this.processor = processor;
    }

    @Operation(operationId = "listIncidents", summary = "Orders set aside as incidents, newest first (operator)")
    @GetMapping("/api/v1/incidents")
    Mono<ResponseEntity<String>> list(ServerWebExchange exchange) {
        return access.require(exchange, Role.OPERATOR)
                .then(processor.get(uri -> uri.path(OrderQueries.INCIDENTS).build()));
    }
}
