package io.orderflow.gateway.orders;

import io.orderflow.gateway.GatewayProperties;
import io.orderflow.gateway.api.ApiException;
import io.orderflow.gateway.internal.InternalApi;
import io.orderflow.internal.InternalToken;
import io.orderflow.schemas.query.LocalQueryApi;
import io.orderflow.schemas.query.OrderQueries;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.web.util.DefaultUriBuilderFactory;
import org.springframework.web.util.UriBuilder;
import reactor.core.publisher.Mono;

/**
 * Interactive queries against the order-processor's internal HTTP API. Any instance answers: it forwards to the
 * owner of an order's key, and scatter-gathers a list across every instance. When the processor named by the URL runs
 * in this JVM (the standalone system), a read it answers locally ({@link LocalQueryApi}) skips the HTTP hop.
 */
@Component
public class ProcessorClient {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final String UNAVAILABLE = "The order processor is not reachable; retry later";

    private final InternalApi api;
    private final String processorUrl;
    private final DefaultUriBuilderFactory relative = new DefaultUriBuilderFactory();

    public ProcessorClient(GatewayProperties settings, InternalToken token) {
        this.api = new InternalApi(settings.processorUrl(), "order processor", token);
        this.processorUrl = settings.processorUrl();
    }

    /**
     * One order's live state as {@code GET /internal/orders/{id}} answers it: status and UTF-8 JSON body, passed on as
     * they are. A read that this JVM's processor has already answered (its own store) is passed on at once; one it
     * forwards to the owner of the key is waited for, at most {@link #TIMEOUT}. Nothing is read before subscription.
     */
    public Mono<ResponseEntity<byte[]>> order(String orderId) {
        return Mono.defer(() -> {
            Function<UriBuilder, URI> uri = b -> b.path(OrderQueries.ORDER).build(orderId);
            Optional<CompletionStage<LocalQueryApi.Answer>> answer = LocalQueryApi.at(processorUrl)
                    .flatMap(local -> local.get(uri.apply(relative.builder())));
            if (answer.isEmpty()) {
                return api.getBytes(uri);
            }
            CompletableFuture<LocalQueryApi.Answer> future = answer.get().toCompletableFuture();
            if (future.isDone() && !future.isCompletedExceptionally()) {
                return Mono.just(entity(future.join()));
            }
            return Mono.fromCompletionStage(future).map(ProcessorClient::entity)
                    .timeout(TIMEOUT)
                    .onErrorMap(e -> !(e instanceof ApiException), e -> ApiException.unavailable(UNAVAILABLE));
        });
    }

    /** GET on the internal API (lists, the approvals inbox), answered with the processor's status and JSON body. */
    public Mono<ResponseEntity<String>> get(Function<UriBuilder, URI> uri) {
        return api.get(uri);
    }

    private static ResponseEntity<byte[]> entity(LocalQueryApi.Answer answer) {
        return ResponseEntity.status(answer.status()).contentType(MediaType.APPLICATION_JSON).body(answer.body());
    }
}
