package io.orderflow.gateway.orders;

import io.orderflow.schemas.query.OrderQueries;
import io.swagger.v3.oas.annotations.Operation;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * The orders set aside as incidents: a record about each could not be processed, so the order failed with the cause
 * as its reason while its partition moved on ({@link io.orderflow.schemas.model.Incident}).
 */
@RestController
class IncidentsController {

    private final ProcessorClient processor;

    IncidentsController(ProcessorClient processor) {
        this.processor = processor;
    }

    @Operation(operationId = "listIncidents", summary = "Orders set aside as incidents, newest first (operator)")
    @GetMapping("/api/v1/incidents")
    Mono<ResponseEntity<String>> list() {
        return processor.get(uri -> uri.path(OrderQueries.INCIDENTS).build());
    }
}
