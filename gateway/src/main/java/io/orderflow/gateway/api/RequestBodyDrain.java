package io.orderflow.gateway.api;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Every request is read to its end before its answer goes out, so a keep-alive connection always goes on to the next
 * request. A route that answers without reading the body (404, 405, 415, a GET, an auth refusal) would otherwise let
 * Reactor Netty finish the request while its last body chunk is still queued; when the next request had already
 * arrived (a client quick on a kept-alive connection, or pipelining), the connection stopped reading and that client
 * got no answer at all (reactor-netty 1.3.7, its "queued request completes synchronously" keep-alive stall).
 *
 * <p>Just before the response is committed, a body nobody read is drained (at most {@value #DRAIN_LIMIT} bytes, for at
 * most 5 s). When it cannot be read to its end (larger, slower, a reader that stopped half way such as the "too
 * large" answer, or a client waiting for {@code 100 Continue}), the answer says {@code Connection: close} instead:
 * RFC 9112 §9.3 lets a server that did not read the whole body close the connection after answering.
 *
 * <p>A body that stops arriving for {@value #BODY_IDLE_SECONDS} s is answered 408 (and the connection closed): a
 * large body queued behind a slow request is another case where Reactor Netty 1.3.7 stops reading half way, and the
 * handler would otherwise wait for the rest forever.
 *
 * <p>Reactor Netty 1.3.8, the version in use, still needs it: without this filter KeepAliveTest's large body queued
 * behind a slow request gets no answer, and its unread bodies are answered without {@code Connection: close}.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
public class RequestBodyDrain implements WebFilter {

    static final int DRAIN_LIMIT = 1024 * 1024;
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(5);
    static final int BODY_IDLE_SECONDS = 10;

    private enum Body { UNREAD, READING, READ, ABANDONED }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        AtomicReference<Body> state = new AtomicReference<>(Body.UNREAD);
        ServerHttpRequest original = exchange.getRequest();
        ServerHttpRequest tracked = new ServerHttpRequestDecorator(original) {
            @Override
            public Flux<DataBuffer> getBody() {
                return super.getBody()
                        .doOnSubscribe(s -> state.compareAndSet(Body.UNREAD, Body.READING))
                        .doOnComplete(() -> state.set(Body.READ))
                        .doOnCancel(() -> state.compareAndSet(Body.READING, Body.ABANDONED))
                        .doOnError(e -> state.compareAndSet(Body.READING, Body.ABANDONED))
                        .timeout(Duration.ofSeconds(BODY_IDLE_SECONDS), Flux.error(() -> new ApiException(
                                HttpStatus.REQUEST_TIMEOUT, ApiError.of("The request body stopped arriving for "
                                + BODY_IDLE_SECONDS + " s; send it whole"), Map.of())));
            }
        };
        exchange.getResponse().beforeCommit(() -> finish(exchange, original, state));
        return chain.filter(exchange.mutate().request(tracked).build());
    }

    private static Mono<Void> finish(ServerWebExchange exchange, ServerHttpRequest request,
                                     AtomicReference<Body> state) {
        Body body = state.get();
        if (body == Body.READ) {
            return Mono.empty();
        }
        if (body != Body.UNREAD || expectsContinue(request)) {
            return closeAfterAnswer(exchange);
        }
        AtomicLong read = new AtomicLong();
        // Mapped to byte counts before being ignored: an ignored DataBuffer would be released a second time by the
        // response's discard hook.
        return request.getBody()
                .map(buffer -> {
                    long total = read.addAndGet(buffer.readableByteCount());
                    DataBufferUtils.release(buffer);
                    if (total > DRAIN_LIMIT) {
                        throw new IllegalStateException("Unread request body above the drain limit");
                    }
                    return total;
                })
                .then()
                .timeout(DRAIN_TIMEOUT)
                .onErrorResume(e -> closeAfterAnswer(exchange));
    }

    /** The body was not read to its end: answer, then close the connection instead of reading on into it. */
    private static Mono<Void> closeAfterAnswer(ServerWebExchange exchange) {
        exchange.getResponse().getHeaders().set(HttpHeaders.CONNECTION, "close");
        return Mono.empty();
    }

    private static boolean expectsContinue(ServerHttpRequest request) {
        String expect = request.getHeaders().getFirst(HttpHeaders.EXPECT);
        return expect != null && expect.equalsIgnoreCase("100-continue");
    }
}
