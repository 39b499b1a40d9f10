package io.orderflow.gateway.batches;

import io.orderflow.gateway.RandomIds;
import io.orderflow.gateway.api.ApiException;
import io.orderflow.gateway.caller.Access;
import io.orderflow.gateway.commands.OrderCommands;
import io.orderflow.gateway.flows.FlowCatalog;
import io.orderflow.gateway.orders.ProcessorClient;
import io.orderflow.gateway.validation.RequestSchema;
import io.orderflow.gateway.validation.RequestValidator;
import io.orderflow.schemas.batches.BatchFilter;
import io.orderflow.schemas.batches.BatchRecord;
import io.orderflow.schemas.commands.BatchAction;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.query.OrderQueries;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Batch operations: act on many orders at once. A batch is accepted at once (202) with its id, after the checks that
 * need no order: the body, the rate, how many batches run, and how many orders the filter matches now (the order
 * counts). Refused, nothing is written. Accepted, its definition goes to the {@code batches} topic, where the gateway
 * instance that has its partition runs it ({@link BatchRunner}); every instance answers its reads ({@link Batches}).
 * Who started a batch, and who stopped it, is kept with it; each order it acts on names it in its timeline.
 */
@RestController
@RequestMapping("/api/v1/batches")
class BatchesController {

    static final int PAGE_DEFAULT = 50;
    static final int PAGE_MAX = 100;
    /** How long a stop waits for the batch to say it stopped before answering 202. */
    static final Duration STOP_WAIT = Duration.ofSeconds(5);
    private static final Pattern BATCH_ID = Pattern.compile("bat_[0-9a-f]{16}");
    private static final Pattern CURSOR = Pattern.compile("[A-Za-z0-9_-]{1,128}");

    private final Access access;
    private final FlowCatalog flows;
    private final RequestValidator validator;
    private final Batches batches;
    private final ProcessorClient processor;
    private final BatchProperties settings;
    private final Clock clock;

    BatchesController(Access access, RequestValidator validator, Batches batches, ProcessorClient processor,
                      BatchProperties settings, Clock clock, FlowCatalog flows) {
        this.flows = flows;
        this.access = access;
        this.validator = validator;
        this.batches = batches;
        this.processor = processor;
        this.settings = settings;
        this.clock = clock;
    }

    @Operation(operationId = "createBatch",
            summary = "Act on the orders a filter matches, or on orders named by id, at a bounded rate (operator)")
    @PostMapping
    Mono<ResponseEntity<JsonNode>> create(@RequestBody(required = false) String body, ServerWebExchange exchange) {
        return access.caller(exchange).flatMap(caller -> {
            JsonNode request = validator.validate(RequestSchema.CREATE_BATCH, body);
            int rate = request.has("rate") ? request.get("rate").asInt() : settings.rate();
            if (rate > settings.rate()) {
                throw ApiException.badRequest("rate must be 1 to " + settings.rate() + " orders a second");
            }
            long now = clock.millis();
            return action(request, caller).flatMap(action -> {
                BatchRecord.Definition definition = new BatchRecord.Definition("bat_" + RandomIds.hex(8),
                        filter(request), orderIds(request), action, rate, caller, actor(caller), now);
                return batches.loaded().then(checkMatches(definition))
                        .then(Mono.fromRunnable(this::checkRunning))
                        .then(batches.create(definition));
            });
        }).map(batch -> ResponseEntity.status(HttpStatus.ACCEPTED)
                .location(URI.create("/api/v1/batches/" + batch.definition().batchId()))
                .body(BatchAnswers.of(batch, true)));
    }

    @Operation(operationId = "listBatches", summary = "Batches, newest first, with their progress (operator)")
    @GetMapping
    Mono<ResponseEntity<JsonNode>> list(@Parameter(description = "the next of the page before",
                                                schema = @Schema(maxLength = 128))
                                        @RequestParam(required = false) String cursor,
                                        @Parameter(description = "batches per page (default 50)",
                                                schema = @Schema(minimum = "1", maximum = "100"))
                                        @RequestParam(required = false) String limit) {
        return batches.loaded().then(Mono.fromSupplier(() -> {
            if (cursor != null && !CURSOR.matcher(cursor).matches()) {
                throw ApiException.badRequest("The cursor is not valid for this list; start again from the first page");
            }
            Batches.Page page = batches.page(cursor, pageSize(limit));
            ObjectNode answer = Json.object();
            var rows = answer.putArray("batches");
            page.batches().forEach(batch -> rows.add(BatchAnswers.of(batch, false)));
            if (page.next() != null) {
                answer.put(OrderQueries.NEXT, page.next());
            }
            return ResponseEntity.ok(answer);
        }));
    }

    @Operation(operationId = "getBatch",
            summary = "A batch: its state, what it matched, did and could not do, with the reasons (operator)")
    @GetMapping("/{id}")
    Mono<ResponseEntity<JsonNode>> get(@PathVariable String id) {
        return batches.loaded().then(Mono.fromSupplier(() ->
                ResponseEntity.ok(BatchAnswers.of(known(id), true))));
    }

    @Operation(operationId = "stopBatch",
            summary = "Stop a running batch before its next order; what it did stays done (operator)")
    @PostMapping("/{id}/stop")
    Mono<ResponseEntity<JsonNode>> stop(@PathVariable String id, ServerWebExchange exchange) {
        return access.caller(exchange).flatMap(caller -> batches.loaded().then(Mono.defer(() -> {
            Batches.Batch batch = known(id);
            if (batch.ended()) {
                throw ApiException.conflict("Batch " + id + " has already " + batch.current().state() + ".");
            }
            return batches.stop(new BatchRecord.Stop(id, actor(caller), clock.millis()))
                    .then(Mono.defer(() -> Mono.justOrEmpty(batches.get(id).filter(Batches.Batch::ended)))
                            .repeatWhenEmpty(repeats -> repeats.delayElements(Duration.ofMillis(100)))
                            .timeout(STOP_WAIT, Mono.empty()))
                    .map(stopped -> ResponseEntity.ok((JsonNode) BatchAnswers.of(stopped, true)))
                    .switchIfEmpty(Mono.fromSupplier(() -> ResponseEntity.status(HttpStatus.ACCEPTED)
                            .body(BatchAnswers.of(known(id), true))));
        })));
    }

    private Batches.Batch known(String id) {
        return (BATCH_ID.matcher(id).matches() ? batches.get(id) : java.util.Optional.<Batches.Batch>empty())
                .filter(batch -> batch.definition() != null)
                .orElseThrow(() -> ApiException.notFound("Batch " + id + " not found"));
    }

    private void checkRunning() {
        if (batches.running() >= BatchProperties.MAX_RUNNING) {
            throw ApiException.conflict(BatchProperties.MAX_RUNNING + " batches are running, the most at once; "
                    + "stop one or wait for one to end");
        }
    }

    /**
     * Refuses a filter that matches more orders than a batch may act on, by the order counts now (orders created
     * later are not matched). Orders named by id are as many as named.
     */
    private Mono<Void> checkMatches(BatchRecord.Definition definition) {
        if (definition.filter() == null) {
            return Mono.empty();
        }
        return processor.counts(BatchRunner.query(definition, null)).flatMap(answer -> {
            if (!answer.getStatusCode().is2xxSuccessful() || answer.getBody() == null) {
                return Mono.error(ApiException.unavailable("The order counts could not be read; retry later"));
            }
            JsonNode counts = Json.MAPPER.readTree(answer.getBody());
            String status = definition.filter().status();
            long matches = status == null ? counts.path("total").asLong() : counts.path("counts").path(status)
                    .asLong();
            if (matches > settings.maxOrders()) {
                return Mono.error(ApiException.badRequest("The filter matches " + matches + " orders; a batch acts on "
                        + "at most " + settings.maxOrders() + ". Narrow the filter."));
            }
            return Mono.empty();
        });
    }

    private static BatchFilter filter(JsonNode request) {
        JsonNode filter = request.get("filter");
        if (filter == null) {
            return null;
        }
        return new BatchFilter(text(filter, "type"), text(filter, "status"), text(filter, "q"),
                filter.has("since") ? filter.get("since").asLong() : null,
                filter.has("until") ? filter.get("until").asLong() : null);
    }

    private static List<String> orderIds(JsonNode request) {
        JsonNode ids = request.get("orderIds");
        return ids == null ? null : ids.valueStream().map(JsonNode::asString).toList();
    }

    /**
     * The batch's action; a migration's version is resolved now (404 for a flow or version the catalog does not have,
     * as starting an order answers), and carried by every order's command.
     */
    private Mono<BatchAction> action(JsonNode request, Caller caller) {
        if (BatchAction.MIGRATE.equals(request.get("action").asString())) {
            return flows.resolve(request.get("flowId").asString(), request.get("toVersion").asInt())
                    .map(flow -> OrderCommands.batchMigrate(request, flow));
        }
        return Mono.fromCallable(() -> OrderCommands.batchAction(caller, request));
    }

    /** Who acts, in words: an email, {@code token:<name>}, {@code shared password} or {@code open deployment}. */
    static String actor(Caller caller) {
        if (caller.identity() != null) {
            return caller.identity();
        }
        return switch (caller.kind()) {
            case "password" -> "shared password";
            case "open" -> "open deployment";
            default -> caller.kind();
        };
    }

    private static String text(JsonNode body, String field) {
        JsonNode value = body.get(field);
        return value == null || value.isNull() ? null : value.asString();
    }

    private static int pageSize(String limit) {
        if (limit == null) {
            return PAGE_DEFAULT;
        }
        try {
            int rows = Integer.parseInt(limit.trim());
            if (rows >= 1 && rows <= PAGE_MAX) {
                return rows;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw ApiException.badRequest("limit must be 1 to " + PAGE_MAX);
    }
}
