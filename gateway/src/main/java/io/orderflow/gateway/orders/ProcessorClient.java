package io.orderflow.gateway.orders;

import io.github.resilience4j.reactor.retry.RetryOperator;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.orderflow.gateway.GatewayProperties;
import io.orderflow.gateway.api.ApiError;
import io.orderflow.gateway.api.ApiException;
import io.orderflow.gateway.internal.InternalApi;
import io.orderflow.internal.InternalToken;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.query.OrderQueries;
import io.orderflow.schemas.query.OrderView;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.util.UriBuilder;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;

/**
 * Interactive queries against the order-processor's internal HTTP API. Any instance answers: it forwards to the
 * owner of an order's key, and scatter-gathers a list across every instance. Where the processor runs in this JVM (the
 * standalone system), its launcher gives the gateway a client with {@link InProcessReads}: a read of one order, a
 * page of the list, the counts and the approvals inbox then go straight to the processor's query routing instead of
 * crossing HTTP twice.
 *
 * <p>The instances are {@code PROCESSOR_URLS} (or {@code PROCESSOR_URL}). A read goes to the instance that answered
 * the last one; when that one cannot be reached or answers a 5xx (it is rebalancing, or cannot reach the key's
 * owner), the read is tried on the next instance, then the next, each attempt after {@link #RETRY_WAIT}
 * (resilience4j-retry). Every attempt shares the one {@link #TIMEOUT}. When no instance gives an answer, the read is a
 * 503 with {@code Retry-After} (with the last instance's own 503 message, such as rebalancing), never a 5xx passed on.
 */
public class ProcessorClient {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    static final Duration RETRY_WAIT = Duration.ofMillis(100);
    private static final String UNAVAILABLE = "The order processor is not reachable; retry later";
    private static final String FAILED = "The order processor could not answer; retry later";

    private final List<String> processorUrls;
    private final List<InternalApi> apis;
    private final Retry retry;
    /** The instance that answered last: reads start there, so a dead instance costs only the read that found it. */
    private final AtomicInteger preferred = new AtomicInteger();
    private final InProcessReads inProcess;

    /**
     * The reads that a processor in this JVM answers as its internal API would (status, UTF-8 JSON body and headers),
     * without HTTP. Its query routing still forwards to the owner of a key, and gathers a list from the other
     * instances, over HTTP.
     */
    public interface InProcessReads {
        /** {@code GET /internal/orders/{id}}. */
        Mono<ResponseEntity<byte[]>> order(String orderId);

        /** {@code GET /internal/orders} with {@code query}, the next page's cursor in a header when asked. */
        Mono<ResponseEntity<byte[]>> orders(OrderQueries.ListQuery query, boolean cursorInHeader);

        /** {@code GET /internal/order-counts} with {@code query}'s filters. */
        Mono<ResponseEntity<byte[]>> counts(OrderQueries.ListQuery query);

        /** {@code GET /internal/approvals}. */
        Mono<ResponseEntity<byte[]>> approvals(String status, String assignee, String cursor);
    }

    /** A client that reads over HTTP only (a gateway of its own). */
    public ProcessorClient(GatewayProperties settings, InternalToken token) {
        this(settings, token, null);
    }

    /** A client whose reads of one order go to {@code inProcess}, a processor in this JVM, when not null. */
    public ProcessorClient(GatewayProperties settings, InternalToken token, InProcessReads inProcess) {
        this.inProcess = inProcess;
        this.processorUrls = settings.processorUrls();
        // Each attempt gets its share of the whole timeout, so a read gives up within TIMEOUT however many there are.
        int attempts = Math.max(2, processorUrls.size());
        Duration perAttempt = TIMEOUT.dividedBy(attempts);
        this.apis = processorUrls.stream()
                .map(url -> new InternalApi(url, "order processor", token, perAttempt)).toList();
        this.retry = Retry.of("order-processor-reads", RetryConfig.<ResponseEntity<?>>custom()
                .maxAttempts(attempts)
                .waitDuration(RETRY_WAIT)
                .retryOnResult(answer -> answer.getStatusCode().is5xxServerError())
                .retryOnException(e -> e instanceof ApiException a && a.status() == HttpStatus.SERVICE_UNAVAILABLE)
                .build());
    }

    /**
     * One order's live state as {@code GET /internal/orders/{id}} answers it: status and UTF-8 JSON body, passed on as
     * they are. A processor in this JVM answers it without HTTP. Nothing is read before subscription.
     */
    public Mono<ResponseEntity<byte[]>> order(String orderId) {
        Function<UriBuilder, URI> uri = b -> b.path(OrderQueries.ORDER).build(orderId);
        return read(instance -> inProcess == null ? apis.get(instance).getBytes(uri)
                : inProcess(() -> inProcess.order(orderId)));
    }

    /**
     * A page of the order list as the processor answers it, passed on as its bytes. With {@code cursorInHeader} the
     * body is {@code {orders}} and the next page's cursor, if any, is the {@value OrderQueries#NEXT_HEADER} header;
     * otherwise the body carries it as {@code next}.
     */
    public Mono<ResponseEntity<byte[]>> orders(OrderQueries.ListQuery query, boolean cursorInHeader) {
        if (inProcess != null) {
            return inProcess(() -> inProcess.orders(query, cursorInHeader)).flatMap(ProcessorClient::answered);
        }
        return read(instance -> apis.get(instance).getBytes(uri -> {
            Map<String, Object> values = query.parameters();
            if (cursorInHeader) {
                values.put(OrderQueries.CURSOR_IN_HEADER, true);
            }
            uri.path(OrderQueries.ORDERS);
            values.keySet().forEach(name -> uri.queryParam(name, "{" + name + "}"));
            return uri.build(values);
        }));
    }

    /** The counts by status over {@code query}'s filters (its status, cursor and limit aside), as answered. */
    public Mono<ResponseEntity<byte[]>> counts(OrderQueries.ListQuery query) {
        if (inProcess != null) {
            return inProcess(() -> inProcess.counts(query)).flatMap(ProcessorClient::answered);
        }
        return read(instance -> apis.get(instance).getBytes(uri -> {
            Map<String, Object> values = query.parameters();
            values.remove("limit");
            values.remove(OrderQueries.STATUS);
            values.remove("cursor");
            uri.path(OrderQueries.ORDER_COUNTS);
            values.keySet().forEach(name -> uri.queryParam(name, "{" + name + "}"));
            return uri.build(values);
        }));
    }

    /** A page of the approvals inbox by status and assignee (null: anyone), as answered. */
    public Mono<ResponseEntity<byte[]>> approvals(String status, String assignee, String cursor) {
        if (inProcess != null) {
            return inProcess(() -> inProcess.approvals(status, assignee, cursor)).flatMap(ProcessorClient::answered);
        }
        Map<String, Object> values = new java.util.LinkedHashMap<>();
        values.put(OrderQueries.STATUS, status);
        if (assignee != null) {
            values.put("assignee", assignee);
        }
        if (cursor != null) {
            values.put("cursor", cursor);
        }
        return read(instance -> apis.get(instance).getBytes(uri -> {
            uri.path(OrderQueries.APPROVALS);
            values.keySet().forEach(name -> uri.queryParam(name, "{" + name + "}"));
            return uri.build(values);
        }));
    }

    /**
     * One order's live state, read as {@link #order} reads it and decoded, for the gateway's own use of it (the order
     * socket, the ops chat, mail acknowledgements). An answer other than 2xx fails with an {@link ApiException} of its
     * status and the processor's error message (404 for an unknown order).
     */
    public Mono<OrderView> view(String orderId) {
        return order(orderId).map(ProcessorClient::view);
    }

    /** The live state a 2xx answer of {@link #order} carries; any other answer as an {@link ApiException}. */
    static OrderView view(ResponseEntity<byte[]> answer) {
        byte[] body = answer.getBody();
        if (answer.getStatusCode().is2xxSuccessful() && body != null) {
            return Json.MAPPER.readValue(body, OrderView.class);
        }
        HttpStatus status = HttpStatus.resolve(answer.getStatusCode().value());
        // an empty 2xx is no state either: the processor always answers a state or an error
        throw new ApiException(status == null || status.is2xxSuccessful() ? HttpStatus.BAD_GATEWAY : status,
                ApiError.of(errorOf(body)), Map.of());
    }

    /** The processor's error message in {@code body}, or {@link #FAILED} when it has none. */
    private static String errorOf(byte[] body) {
        try {
            return body == null ? FAILED : Json.MAPPER.readTree(body).path("error").asString(FAILED);
        } catch (RuntimeException notJson) {
            return FAILED;
        }
    }

    /** GET on the internal API (the incidents), answered with the processor's status and JSON body. */
    public Mono<ResponseEntity<String>> get(Function<UriBuilder, URI> uri) {
        return read(instance -> apis.get(instance).get(uri));
    }

    /** The instances reads go to, in the order they are tried from the first. */
    public List<String> processorUrls() {
        return processorUrls;
    }

    /** {@code call} on the preferred instance, then on the next ones while they fail (see the class comment). */
    private <T> Mono<ResponseEntity<T>> read(IntFunction<Mono<ResponseEntity<T>>> call) {
        return Mono.defer(() -> {
            int first = preferred.get();
            AtomicInteger attempt = new AtomicInteger();
            return Mono.defer(() -> {
                        int instance = (first + attempt.getAndIncrement()) % apis.size();
                        return call.apply(instance).doOnNext(answer -> {
                            if (!answer.getStatusCode().is5xxServerError()) {
                                preferred.set(instance);
                            }
                        });
                    })
                    .transformDeferred(RetryOperator.of(retry))
                    .flatMap(answer -> answer.getStatusCode().is5xxServerError()
                            ? Mono.error(ApiException.unavailable(failure(answer))) : Mono.just(answer));
        });
    }

    /** Why the last instance asked could not answer: its own 503 message (rebalancing, ...), or a general one. */
    private static String failure(ResponseEntity<?> answer) {
        if (answer.getStatusCode() == HttpStatus.SERVICE_UNAVAILABLE) {
            try {
                JsonNode body = switch (answer.getBody()) {
                    case byte[] bytes -> Json.MAPPER.readTree(bytes);
                    case String text -> Json.MAPPER.readTree(text);
                    case null, default -> Json.object();
                };
                String error = body.path("error").asString("");
                if (!error.isBlank()) {
                    return error;
                }
            } catch (RuntimeException notJson) {
                return FAILED;
            }
        }
        return FAILED;
    }

    /** A read by the processor in this JVM; a failure other than an answer is the processor's 503. */
    private Mono<ResponseEntity<byte[]>> inProcess(java.util.function.Supplier<Mono<ResponseEntity<byte[]>>> read) {
        return Mono.defer(read)
                .map(answer -> {
                    ResponseEntity.BodyBuilder entity = ResponseEntity.status(answer.getStatusCode())
                            .contentType(MediaType.APPLICATION_JSON);
                    if (answer.getHeaders().getETag() != null) {
                        entity.eTag(answer.getHeaders().getETag());
                    }
                    String next = answer.getHeaders().getFirst(OrderQueries.NEXT_HEADER);
                    if (next != null) {
                        entity.header(OrderQueries.NEXT_HEADER, next);
                    }
                    return entity.body(answer.getBody());
                })
                .timeout(TIMEOUT)
                .onErrorMap(e -> !(e instanceof ApiException), e -> ApiException.unavailable(UNAVAILABLE));
    }

    /** An in-process answer as the HTTP reads pass it on: a 5xx becomes the 503 of {@link #read}. */
    private static Mono<ResponseEntity<byte[]>> answered(ResponseEntity<byte[]> answer) {
        return answer.getStatusCode().is5xxServerError()
                ? Mono.error(ApiException.unavailable(failure(answer))) : Mono.just(answer);
    }
}
