package io.orderflow.standalone.bench;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import java.time.Duration;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufMono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

/**
 * The benchmark's HTTP/1.1 client: Reactor Netty on one event loop of its own, with a pool of keep-alive connections,
 * called from the orders' virtual threads, which wait for their answer. The benchmark shares the machine with the
 * system it measures, so its own CPU per request counts: the JDK's {@code java.net.http.HttpClient} (a selector
 * thread and an executor hop per request) cost about twice as much per order.
 */
final class BenchHttp implements AutoCloseable {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** A response's status code and body. */
    record Response(int status, String body) {
    }

    private final LoopResources loop = LoopResources.create("bench-http", 1, true);
    private final ConnectionProvider pool;
    private final HttpClient client;
    private final HttpClient json;

    BenchHttp(String base, int connections) {
        pool = ConnectionProvider.builder("bench").maxConnections(connections).pendingAcquireMaxCount(-1).build();
        client = HttpClient.create(pool).runOn(loop).baseUrl(base).responseTimeout(TIMEOUT);
        json = client.headers(h -> h.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON));
    }

    Response post(String path, String body) {
        return json.post().uri(path).send(ByteBufMono.fromString(Mono.just(body)))
                .responseSingle((response, content) -> content.asString().defaultIfEmpty("")
                        .map(text -> new Response(response.status().code(), text)))
                .block(TIMEOUT);
    }

    Response get(String path) {
        return client.get().uri(path)
                .responseSingle((response, content) -> content.asString().defaultIfEmpty("")
                        .map(text -> new Response(response.status().code(), text)))
                .block(TIMEOUT);
    }

    Response delete(String path) {
        return client.delete().uri(path)
                .responseSingle((response, content) -> content.asString().defaultIfEmpty("")
                        .map(text -> new Response(response.status().code(), text)))
                .block(TIMEOUT);
    }

    @Override
    public void close() {
        pool.dispose();
        loop.dispose();
    }
}
