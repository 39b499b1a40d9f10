package io.orderflow.gateway.orders;

import io.orderflow.gateway.api.ApiError;
import io.orderflow.gateway.api.ApiException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.orderflow.gateway.caller.Access;
import io.orderflow.gateway.commands.CommandBus;
import io.orderflow.gateway.commands.CommandReplies;
import io.orderflow.gateway.commands.OrderCommands;
import io.orderflow.gateway.commands.OrderCommands.Channel;
import io.orderflow.gateway.commands.StartRequest;
import io.orderflow.gateway.flows.FlowCatalog;
import io.orderflow.gateway.validation.RequestSchema;
import io.orderflow.gateway.validation.RequestValidator;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.OrderType;
import io.orderflow.schemas.query.OrderQueries;
import java.net.URI;
import java.util.Map;
import java.util.Optional;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.util.UriBuilder;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;

/**
 * The order routes. Writes validate, then become one command to the order's agent, answered with its reply as it is;
 * reads are interactive queries to the processor. Nothing invalid reaches Kafka.
 */
@RestController
@RequestMapping("/api/v1/orders")
class OrdersController {

    static final int IDEMPOTENCY_KEY_MAX = 255;
    static final int CURSOR_MAX = 512;
    private static final java.util.regex.Pattern CURSOR = java.util.regex.Pattern.compile("[A-Za-z0-9_-]{1,512}");

    private final Access access;
    private final RequestValidator validator;
    private final FlowCatalog flows;
    private final CommandBus commands;
    private final ProcessorClient processor;

    OrdersController(Access access, RequestValidator validator, FlowCatalog flows, CommandBus commands,
                     ProcessorClient processor) {
        this.access = access;
        this.validator = validator;
        this.flows = flows;
        this.commands = commands;
        this.processor = processor;
    }

    @Operation(operationId = "startOrder")
    @PostMapping
    Mono<ResponseEntity<JsonNode>> start(@Parameter(description = "makes retries safe: a repeat answers 200 with the "
                                                 + "same order", schema = @Schema(maxLength = IDEMPOTENCY_KEY_MAX))
                                         @RequestHeader(name = "Idempotency-Key", required = false) String key,
                                         @RequestBody(required = false) String body, ServerWebExchange exchange) {
        return access.caller(exchange).flatMap(caller -> {
            StartRequest request = StartRequest.of(validator.validate(RequestSchema.START_ORDER, body));
            checkIdempotencyKey(key);
            String orderId = key == null ? OrderIds.random() : OrderIds.fromIdempotencyKey(key);
            return flows.resolve(request.flowId(), request.version())
                    .flatMap(flow -> commands.send(OrderCommands.start(request, orderId, flow, key != null), caller));
        }).map(reply -> answer(reply, CommandReplies.status(reply) == HttpStatus.CREATED.value()
                ? URI.create("/api/v1/orders/" + reply.orderId()) : null));
    }

    @Operation(operationId = "listOrders")
    @GetMapping
    Mono<ResponseEntity<byte[]>> list(@Parameter(schema = @Schema(allowableValues = {"purchase_request", "b2b_order",
                                              "reorder", "subscription", "storefront_order"}))
                                      @RequestParam(required = false) String type,
                                      @Parameter(schema = @Schema(allowableValues = {"queued", "running", "waiting",
                                              "completed", "declined", "cancelled", "failed", "rolled_back"}))
                                      @RequestParam(required = false) String status,
                                      @Parameter(description = "matches the order id, the title, the customer id, "
                                              + "a line's SKU or name, or the customer's name: every word of q "
                                              + "(letters, digits, _ and -) must begin a word of one of them, case "
                                              + "ignored")
                                      @RequestParam(required = false) String q,
                                      @Parameter(description = "created at or after (epoch milliseconds)")
                                      @RequestParam(required = false) String since,
                                      @Parameter(description = "created at or before (epoch milliseconds)")
                                      @RequestParam(required = false) String until,
                                      @Parameter(description = "newest first by creation (default) or by last change",
                                              schema = @Schema(allowableValues = {"created", "updated"}))
                                      @RequestParam(required = false) String sort,
                                      @Parameter(description = "the next of the page before",
                                              schema = @Schema(maxLength = CURSOR_MAX))
                                      @RequestParam(required = false) String cursor,
                                      @Parameter(description = "rows per page; the answer then carries next",
                                              schema = @Schema(minimum = "1", maximum = "200"))
                                      @RequestParam(required = false) String limit,
                                      ServerWebExchange exchange) {
        return Mono.fromCallable(() -> {
                    checkFilters(type, status);
                    return new OrderQueries.ListQuery(type, status, q, epochMillis("since", since),
                            epochMillis("until", until), checkSort(sort), checkCursor(cursor), pageSize(limit));
                })
                .flatMap(query -> {
                    boolean paging = cursor != null || limit != null;
                    return processor.orders(query, !paging).map(response -> paged(response, exchange));
                });
    }

    @Operation(operationId = "countOrders")
    @GetMapping("/counts")
    Mono<ResponseEntity<byte[]>> counts(@Parameter(schema = @Schema(allowableValues = {"purchase_request",
                                                "b2b_order", "reorder", "subscription", "storefront_order"}))
                                        @RequestParam(required = false) String type,
                                        @Parameter(description = "as the list's q")
                                        @RequestParam(required = false) String q,
                                        @Parameter(description = "created at or after (epoch milliseconds)")
                                        @RequestParam(required = false) String since,
                                        @Parameter(description = "created at or before (epoch milliseconds)")
                                        @RequestParam(required = false) String until) {
        return Mono.fromCallable(() -> {
                    checkFilters(type, null);
                    return new OrderQueries.ListQuery(type, null, q, epochMillis("since", since),
                            epochMillis("until", until), null, null, OrderQueries.LIST_MAX);
                })
                .flatMap(processor::counts);
    }

    @Operation(operationId = "getOrder")
    @GetMapping("/{id}")
    Mono<ResponseEntity<byte[]>> get(@PathVariable String id,
                                     @Parameter(description = "wait (up to 5 seconds) until the order has at least "
                                             + "this version, such as the version a command answered; 503 with "
                                             + "Retry-After if it does not get there in time",
                                             schema = @Schema(type = "integer", format = "int64", minimum = "0"))
                                     @RequestParam(required = false) String minVersion,
                                     @Parameter(description = "the ETag of a read before: 304 without a body while "
                                             + "the order is still at that version")
                                     @RequestHeader(name = "If-None-Match", required = false) String ifNoneMatch) {
        // The processor's answer (its OrderView, or its error) goes out as the bytes it wrote, with the version it
        // answered as the ETag: nothing here reads the state, so it is neither decoded nor encoded again on the
        // busiest read.
        return Mono.fromCallable(() -> {
                    requireOrderId(id);
                    return Optional.ofNullable(OrderVersions.minVersion(minVersion));
                })
                .flatMap(wanted -> OrderVersions.atLeast(processor.order(id), id, wanted.orElse(null)))
                .map(answer -> OrderVersions.conditional(answer, ifNoneMatch));
    }

    @Operation(operationId = "deliverEvent")
    @PostMapping("/{id}/events")
    Mono<ResponseEntity<JsonNode>> deliver(@PathVariable String id, @RequestBody(required = false) String body,
                                           ServerWebExchange exchange) {
        return access.caller(exchange).flatMap(caller -> {
            JsonNode request = validator.validate(RequestSchema.DELIVER_EVENT, body);
            requireOrderId(id);
            return commands.send(OrderCommands.deliver(id, request), caller);
        }).map(reply -> answer(reply, null));
    }

    @Operation(operationId = "decideApproval")
    @PostMapping("/{id}/approvals/{nodeId}")
    Mono<ResponseEntity<JsonNode>> decide(@PathVariable String id, @PathVariable String nodeId,
                                          @Parameter(description = IF_MATCH)
                                          @RequestHeader(name = "If-Match", required = false) String ifMatch,
                                          @RequestBody(required = false) String body, ServerWebExchange exchange) {
        return access.caller(exchange).flatMap(caller -> {
            JsonNode request = validator.validate(RequestSchema.DECIDE_APPROVAL, body);
            requireOrderId(id);
            Long expected = OrderVersions.ifMatch(ifMatch);
            return commands.send(OrderCommands.decide(caller, id, nodeId, request, expected), caller);
        }).map(reply -> answer(reply, null));
    }

    @Operation(operationId = "cancelOrder")
    @PostMapping("/{id}/cancel")
    Mono<ResponseEntity<JsonNode>> cancel(@PathVariable String id,
                                          @Parameter(description = IF_MATCH)
                                          @RequestHeader(name = "If-Match", required = false) String ifMatch,
                                          @RequestBody(required = false) String body, ServerWebExchange exchange) {
        return access.caller(exchange).flatMap(caller -> {
            JsonNode request = validator.validate(RequestSchema.CANCEL_ORDER, body);
            requireOrderId(id);
            Long expected = OrderVersions.ifMatch(ifMatch);
            return commands.send(OrderCommands.cancel(Channel.API, id, request, expected), caller);
        }).map(reply -> answer(reply, null));
    }

    @Operation(operationId = "migrateOrder", summary = "Move a waiting order onto another published version of its "
            + "flow, its waits carried over through a mapping of node ids; dryRun answers and changes nothing "
            + "(operator)")
    @PostMapping("/{id}/migrate")
    Mono<ResponseEntity<JsonNode>> migrate(@PathVariable String id, @RequestBody(required = false) String body,
                                           ServerWebExchange exchange) {
        return access.caller(exchange).flatMap(caller -> {
            JsonNode request = validator.validate(RequestSchema.MIGRATE_ORDER, body);
            requireOrderId(id);
            int toVersion = request.get("toVersion").asInt();
            return flowOf(id).flatMap(flowId -> flows.resolve(flowId, toVersion))
                    .flatMap(flow -> commands.send(OrderCommands.migrate(id, flow, request), caller));
        }).map(reply -> answer(reply, null));
    }

    /**
     * The flow the order runs on, from a read of the order; an order that cannot be read is answered as the read
     * answers (404 for an unknown one). The order's flow never changes (a migration changes only its version), so a
     * read that lags does not matter.
     */
    private Mono<String> flowOf(String orderId) {
        return processor.order(orderId).map(answer -> {
            JsonNode read = answer.getBody() == null ? Json.object() : Json.MAPPER.readTree(answer.getBody());
            if (!answer.getStatusCode().is2xxSuccessful()) {
                throw new ApiException(HttpStatus.valueOf(answer.getStatusCode().value()),
                        ApiError.of(read.path("error").asString("Order " + orderId
                                + " could not be read")), Map.of());
            }
            return read.path("flow").path("flowId").asString();
        });
    }

    private static final String IF_MATCH = "the ETag of the read this change is based on, such as \"7\": refused "
            + "with 412 and nothing changed when the order has changed since";

    /**
     * The processor's reply as the HTTP answer: its status ({@link CommandReplies#status}) and body, with the order's
     * version after the command (the reply's {@code version}) as the {@code ETag}.
     */
    private static ResponseEntity<JsonNode> answer(CommandReply reply, URI location) {
        ResponseEntity.BodyBuilder response = ResponseEntity.status(CommandReplies.status(reply));
        if (location != null) {
            response.location(location);
        }
        String etag = OrderVersions.etagOf(reply.body());
        if (etag != null) {
            response.eTag(etag);
        }
        return response.body(CommandReplies.body(reply));
    }

    private static void checkFilters(String type, String status) {
        if (type != null && OrderType.fromWire(type) == null) {
            throw ApiException.badRequest("Unknown order type '" + type + "'");
        }
        if (status != null && OrderStatus.fromWire(status) == null) {
            throw ApiException.badRequest("Unknown order status '" + status + "'");
        }
    }

    private static Long epochMillis(String name, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw ApiException.badRequest(name + " must be epoch milliseconds");
        }
    }

    private static String checkSort(String sort) {
        if (sort != null && !OrderQueries.SORT_CREATED.equals(sort) && !OrderQueries.SORT_UPDATED.equals(sort)) {
            throw ApiException.badRequest("sort must be created or updated");
        }
        return sort;
    }

    /** A cursor is opaque, but only ever base64url: anything else is refused before the processor sees it. */
    static String checkCursor(String cursor) {
        if (cursor != null && !CURSOR.matcher(cursor).matches()) {
            throw ApiException.badRequest("The cursor is not valid for this list; start again from the first page");
        }
        return cursor;
    }

    private static int pageSize(String limit) {
        if (limit == null) {
            return OrderQueries.LIST_MAX;
        }
        try {
            int rows = Integer.parseInt(limit.trim());
            if (rows >= 1 && rows <= OrderQueries.LIST_MAX) {
                return rows;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw ApiException.badRequest("limit must be 1 to " + OrderQueries.LIST_MAX);
    }

    /**
     * The contract's answer is {@code { orders }}: a caller who did not page (no {@code cursor}, no {@code limit})
     * gets exactly that, and the next page's address in a {@code Link} header; one who pages gets {@code next} too.
     * The processor writes the body either way (for a caller who did not page, with the cursor in a header), so it
     * goes out as the bytes it came in.
     */
    private static ResponseEntity<byte[]> paged(ResponseEntity<byte[]> response, ServerWebExchange exchange) {
        String next = response.getHeaders().getFirst(OrderQueries.NEXT_HEADER);
        if (next == null) {
            return response;
        }
        HttpHeaders headers = new HttpHeaders();
        headers.putAll(response.getHeaders());
        headers.remove(OrderQueries.NEXT_HEADER);
        String link = org.springframework.web.util.UriComponentsBuilder.fromPath("/api/v1/orders")
                .query(exchange.getRequest().getURI().getRawQuery()).replaceQueryParam("cursor", next)
                .build().toUriString();
        headers.add(HttpHeaders.LINK, "<" + link + ">; rel=\"next\"");
        return ResponseEntity.status(response.getStatusCode()).headers(headers).body(response.getBody());
    }

    private static void checkIdempotencyKey(String key) {
        if (key != null && (key.isEmpty() || key.length() > IDEMPOTENCY_KEY_MAX)) {
            throw ApiException.badRequest("Idempotency-Key must be 1 to " + IDEMPOTENCY_KEY_MAX + " characters");
        }
    }

    /** An id that cannot name an order is answered like an unknown one, without asking anybody. */
    private static void requireOrderId(String id) {
        if (!OrderIds.isOrderId(id)) {
            throw ApiException.notFound("Order " + id + " not found");
        }
    }
}
