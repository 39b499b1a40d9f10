package io.orderflow.gateway.orders;

import io.github.resilience4j.reactor.retry.RetryOperator;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.orderflow.gateway.GatewayProperties;
import io.orderflow.gateway.api.ApiException;
import io.orderflow.gateway.internal.InternalApi;
import io.orderflow.internal.InternalToken;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.query.LocalQueryApi;
import io.orderflow.schemas.query.OrderQueries;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.web.util.DefaultUriBuilderFactory;
import org.springframework.web.util.UriBuilder;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;

/**
 * Interactive queries against the order-processor's internal HTTP API. Any instance answers: it forwards to the
 * owner of an order's key, and scatter-gathers a list across every instance. When the processor named by a URL runs
 * in this JVM (the standalone system), a read it answers locally ({@link LocalQueryApi}) skips the HTTP hop.
 *
 * <p>The instances are {@code PROCESSOR_URLS} (or {@code PROCESSOR_URL}). A read goes to the instance that answered
 * the last one; when that one cannot be reached or answers a 5xx (it is rebalancing, or cannot reach the key's
 * owner), the read is tried on the next instance, then the next, each attempt after {@link #RETRY_WAIT}
 * (resilience4j-retry). Every attempt shares the one {@link #TIMEOUT}. When no instance gives an answer, the read is a
 * 503 with {@code Retry-After} (with the last instance's own 503 message, such as rebalancing), never a 5xx passed on.
 */
@Component
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
    private final DefaultUriBuilderFactory relative = new DefaultUriBuilderFactory();

    public ProcessorClient(GatewayProperties settings, InternalToken token) {
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
     * they are. A read that this JVM's processor has already answered (its own store) is passed on at once; one it
     * forwards to the owner of the key is waited for. Nothing is read before subscription.
     */
    public Mono<ResponseEntity<byte[]>> order(String orderId) {
        Function<UriBuilder, URI> uri = b -> b.path(OrderQueries.ORDER).build(orderId);
        return read(instance -> local(instance, uri).orElseGet(() -> apis.get(instance).getBytes(uri)));
    }

    /** GET on the internal API (lists, the approvals inbox), answered with the processor's status and JSON body. */
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

    /** The read answered by the processor in this JVM, when the instance's URL names one. */
    private Optional<Mono<ResponseEntity<byte[]>>> local(int instance, Function<UriBuilder, URI> uri) {
        Optional<CompletionStage<LocalQueryApi.Answer>> answer = LocalQueryApi.at(processorUrls.get(instance))
                .flatMap(local -> local.get(uri.apply(relative.builder())));
        if (answer.isEmpty()) {
            return Optional.empty();
        }
        CompletableFuture<LocalQueryApi.Answer> future = answer.get().toCompletableFuture();
        if (future.isDone() && !future.isCompletedExceptionally()) {
            return Optional.of(Mono.just(entity(future.join())));
        }
        return Optional.of(Mono.fromCompletionStage(future).map(ProcessorClient::entity)
                .timeout(TIMEOUT)
                .onErrorMap(e -> !(e instanceof ApiException), e -> ApiException.unavailable(UNAVAILABLE)));
    }

    private static ResponseEntity<byte[]> entity(LocalQueryApi.Answer answer) {
        return ResponseEntity.status(answer.status()).contentType(MediaType.APPLICATION_JSON).body(answer.body());
    }
}
