package io.orderflow.gateway.flows;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.orderflow.gateway.api.ApiException;
import io.orderflow.schemas.flows.FlowRecord;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.model.OrderType;
import java.util.List;
import io.swagger.v3.oas.annotations.Operation;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

@RestController
class FlowsController {

    /** A flow as the API lists it; {@code publishedVersion} is {@code null} until the first publish. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    record Flow(String id, String name, String description, OrderType orderType, Integer publishedVersion,
                long updatedAt, int nodeCount) {

        static Flow of(FlowRecord record) {
            return new Flow(record.id(), record.name(), record.description(), record.orderType(),
                    record.publishedVersion(), record.updatedAt(), record.nodeCount());
        }
    }

    record Flows(List<Flow> flows) {
    }

    private final FlowCatalog catalog;

    FlowsController(FlowCatalog catalog) {
        this.catalog = catalog;
    }

    @Operation(operationId = "listFlows")
    @GetMapping("/api/v1/flows")
    Mono<Flows> list() {
        return catalog.all()
                .map(all -> new Flows(all.stream().map(Flow::of).toList()));
    }

    /** The highest version a path may name, as a migration's {@code toVersion} is bounded. */
    private static final int MAX_VERSION = 1_000_000;

    @Operation(operationId = "getFlowVersion",
            summary = "One published version of a flow with its nodes and edges, as an order pinned to it has it")
    @GetMapping("/api/v1/flows/{id}/versions/{version}")
    Mono<FlowVersion> version(@PathVariable String id, @PathVariable String version) {
        return Mono.defer(() -> catalog.resolve(id, parse(version)));
    }

    private static int parse(String version) {
        if (!version.matches("[1-9][0-9]{0,6}") || Integer.parseInt(version) > MAX_VERSION) {
            throw ApiException.badRequest("The version must be a whole number from 1 to 1,000,000");
        }
        return Integer.parseInt(version);
    }
}
