package io.orderflow.gateway.orders;

import io.orderflow.gateway.api.ApiException;
import io.orderflow.schemas.query.OrderQueries;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * The approvals inbox across every order: the processor's approval rows (one per Approval node that opened its
 * wait), by status and assignee, soonest deadline first, a page at a time.
 */
@RestController
class ApprovalsController {

    static final List<String> STATUSES = List.of("pending", "approved", "rejected", "escalated", "cancelled", "all");
    static final int ASSIGNEE_MAX = 200;

    private final ProcessorClient processor;

    ApprovalsController(ProcessorClient processor) {
        this.processor = processor;
    }

    @Operation(operationId = "listApprovals", summary = "The approvals inbox, soonest deadline first (viewer)")
    @GetMapping("/api/v1/approvals")
    Mono<ResponseEntity<byte[]>> list(@Parameter(description = "pending when absent", schema = @Schema(
                                              allowableValues = {"pending", "approved", "rejected", "escalated",
                                                      "cancelled", "all"}))
                                      @RequestParam(required = false) String status,
                                      @Parameter(description = "only approvals for this assignee (any case)",
                                              schema = @Schema(maxLength = ASSIGNEE_MAX))
                                      @RequestParam(required = false) String assignee,
                                      @Parameter(description = "the next of the page before",
                                              schema = @Schema(maxLength = OrdersController.CURSOR_MAX))
                                      @RequestParam(required = false) String cursor) {
        return Mono.fromCallable(() -> {
            String wanted = status == null || status.isBlank() ? "pending" : status;
            if (!STATUSES.contains(wanted)) {
                throw ApiException.badRequest("Unknown approval status '" + status + "'");
            }
            if (assignee != null && assignee.length() > ASSIGNEE_MAX) {
                throw ApiException.badRequest("assignee must be at most " + ASSIGNEE_MAX + " characters");
            }
            return new InboxQuery(wanted, assignee == null || assignee.isBlank() ? null : assignee.trim(),
                    OrdersController.checkCursor(cursor));
        }).flatMap(query -> processor.approvals(query.status(), query.assignee(), query.cursor()));
    }

    /** The inbox query once checked: a status, the assignee (null: anyone) and the cursor (null: the first page). */
    private record InboxQuery(String status, String assignee, String cursor) {
    }
}
