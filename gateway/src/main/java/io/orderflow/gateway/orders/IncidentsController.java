package io.orderflow.gateway.orders;

import io.orderflow.gateway.api.ApiException;
import io.orderflow.gateway.caller.Access;
import io.orderflow.gateway.commands.CommandBus;
import io.orderflow.gateway.commands.CommandReplies;
import io.orderflow.gateway.commands.OrderCommands;
import io.orderflow.gateway.validation.RequestSchema;
import io.orderflow.gateway.validation.RequestValidator;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.model.Incident;
import io.orderflow.schemas.query.OrderQueries;
import io.swagger.v3.oas.annotations.Operation;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;

/**
 * The orders set aside as incidents: a record about each could not be processed, so the order failed with the cause
 * as its reason while its partition moved on ({@link io.orderflow.schemas.model.Incident}). An operator retries one
 * (its record is applied again) or dismisses it with a note; both go to the order's agent as commands, which records
 * who acted in the incident's history and the order's timeline.
 */
@RestController
class IncidentsController {

    private final ProcessorClient processor;
    private final Access access;
    private final RequestValidator validator;
    private final CommandBus commands;

    IncidentsController(ProcessorClient processor, Access access, RequestValidator validator, CommandBus commands) {
        this.processor = processor;
        this.access = access;
        this.validator = validator;
        this.commands = commands;
    }

    @Operation(operationId = "listIncidents", summary = "Orders set aside as incidents, newest first (operator)")
    @GetMapping("/api/v1/incidents")
    Mono<ResponseEntity<String>> list() {
        return processor.get(uri -> uri.path(OrderQueries.INCIDENTS).build());
    }

    @Operation(operationId = "retryIncident",
            summary = "Apply an incident's set-aside record again; the order resumes where it stood (operator)")
    @PostMapping("/api/v1/incidents/{id}/retry")
    Mono<ResponseEntity<JsonNode>> retry(@PathVariable String id, ServerWebExchange exchange) {
        return access.caller(exchange).flatMap(caller ->
                commands.send(OrderCommands.retryIncident(orderOf(id), id), caller)).map(IncidentsController::answer);
    }

    @Operation(operationId = "dismissIncident", summary = "Close an open incident with a note (operator)")
    @PostMapping("/api/v1/incidents/{id}/dismiss")
    Mono<ResponseEntity<JsonNode>> dismiss(@PathVariable String id, @RequestBody(required = false) String body,
                                           ServerWebExchange exchange) {
        return access.caller(exchange).flatMap(caller -> {
            JsonNode request = validator.validate(RequestSchema.DISMISS_INCIDENT, body);
            return commands.send(OrderCommands.dismissIncident(orderOf(id), id, request), caller);
        }).map(IncidentsController::answer);
    }

    /** The order an incident id names; an id that names none is an unknown incident. */
    private static String orderOf(String incidentId) {
        String orderId = Incident.orderIdOf(incidentId);
        if (orderId == null || !OrderIds.isOrderId(orderId)) {
            throw ApiException.notFound("Incident " + incidentId + " not found");
        }
        return orderId;
    }

    private static ResponseEntity<JsonNode> answer(CommandReply reply) {
        return ResponseEntity.status(CommandReplies.status(reply)).body(CommandReplies.body(reply));
    }
}
