package io.orderflow.gateway.internal;

import io.orderflow.gateway.api.ApiException;
import io.orderflow.internal.InternalToken;
import io.orderflow.schemas.query.OrderQueries;
import java.net.URI;
import java.time.Duration;
import java.util.function.Function;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.util.UriBuilder;
import reactor.core.publisher.Mono;

/**
 * The internal HTTP API of another service (the processor's queries, the dispatcher's subscriptions). Answers are
 * passed through with their status, JSON body and {@code Retry-After} (a rate limit's) as they are; a service that
 * cannot be reached, or does not answer within 10 s, is a 503 with {@code Retry-After}. Every call carries {@code INTERNAL_TOKEN} when one is set.
 */
public final class InternalApi {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final byte[] EMPTY_OBJECT = {'{', '}'};

    private final WebClient http;
    private final String unavailable;
    private final Duration timeout;

    /** {@code service} names the other side in the 503 message, e.g. "order processor". */
    public InternalApi(String baseUrl, String service, InternalToken token) {
        this(baseUrl, service, token, TIMEOUT);
    }

    /** An API whose calls give up after {@code timeout} instead of 10 s. */
    public InternalApi(String baseUrl, String service, InternalToken token, Duration timeout) {
        this.http = WebClient.builder().baseUrl(baseUrl).defaultHeaders(token::addTo).build();
        this.unavailable = "The " + service + " is not reachable; retry later";
        this.timeout = timeout;
    }

    public Mono<ResponseEntity<String>> get(Function<UriBuilder, URI> uri) {
        return exchange(HttpMethod.GET, uri, null);
    }

    /** A GET whose JSON body is passed on as the bytes it came in, without decoding it. */
    public Mono<ResponseEntity<byte[]>> getBytes(Function<UriBuilder, URI> uri) {
        return answer(http.get().uri(uri).accept(MediaType.APPLICATION_JSON), byte[].class, EMPTY_OBJECT);
    }

    /** One call; {@code body} is sent as JSON when present. */
    public Mono<ResponseEntity<String>> exchange(HttpMethod method, Function<UriBuilder, URI> uri, String body) {
        WebClient.RequestBodySpec request = http.method(method).uri(uri).accept(MediaType.APPLICATION_JSON);
        if (body != null) {
            request.contentType(MediaType.APPLICATION_JSON).bodyValue(body);
        }
        return answer(request, String.class, "{}");
    }

    private <T> Mono<ResponseEntity<T>> answer(WebClient.RequestHeadersSpec<?> request, Class<T> type, T empty) {
        return request.exchangeToMono(response -> response.bodyToMono(type).defaultIfEmpty(empty)
                        .map(answer -> {
                            ResponseEntity.BodyBuilder entity = ResponseEntity.status(response.statusCode())
                                    .contentType(MediaType.APPLICATION_JSON);
                            response.headers().header(HttpHeaders.RETRY_AFTER).stream().findFirst()
                                    .ifPresent(wait -> entity.header(HttpHeaders.RETRY_AFTER, wait));
                            response.headers().header(HttpHeaders.ETAG).stream().findFirst()
                                    .ifPresent(entity::eTag);
                            response.headers().header(OrderQueries.NEXT_HEADER).stream().findFirst()
                                    .ifPresent(next -> entity.header(OrderQueries.NEXT_HEADER, next));
                            return entity.body(answer);
                        }))
                .timeout(timeout)
                .onErrorMap(e -> !(e instanceof ApiException), e -> ApiException.unavailable(unavailable));
    }
}
