package io.orderflow.dispatcher.dispatch;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOption;
import io.netty.resolver.AddressResolverGroup;
import io.orderflow.dispatcher.DispatcherProperties;
import io.orderflow.schemas.signing.WebhookSignature;
import java.net.ConnectException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;
import reactor.util.context.Context;

/**
 * POSTs one signed delivery with Reactor Netty. Never blocks the caller: the answer (or its absence) arrives on the
 * returned future. Redirects are not followed: a 3xx is a failed attempt like any other non-2xx.
 *
 * <p>Connections are pooled per remote host and port, at most {@code connectionsPerHost} each: that bounds how much
 * one subscriber can hold, and a slow subscriber's requests queue in its own pool without taking a connection from
 * anyone else. Every new connection passes the {@link AddressGuard} with the {@link AddressPolicy}. The requests run
 * on event loops of their own, {@code webhook-http-*}.
 */
@Component
public class WebhookSender implements AutoCloseable {

    /** What one attempt got: the status of the answer, if any, and why it failed, if it did. */
    public record Outcome(Integer status, String error) {

        public boolean delivered() {
            return error == null;
        }

        /** The address policy refused the connection: nothing was sent, and nothing would be on a retry. */
        public boolean refused() {
            return error != null && error.startsWith(AddressPolicy.REFUSED);
        }
    }

    private static final String TRACEPARENT = "traceparent";
    /** The context key of the callback {@link #send} runs when its request goes out. */
    private static final String ON_SENT = WebhookSender.class.getName() + ".onSent";

    private final ConnectionProvider pool;
    private final LoopResources loops;
    private final HttpClient plain;
    private final HttpClient secure;
    private final Duration timeout;
    private final Clock clock;

    /**
     * {@code resolver}, when present, replaces Reactor Netty's name resolution (a seam for tests, which have no DNS);
     * the guard judges whatever address it yields.
     */
    public WebhookSender(DispatcherProperties properties, Clock clock,
                         ObjectProvider<AddressResolverGroup<?>> resolver) {
        this.timeout = properties.requestTimeout();
        this.clock = clock;
        this.pool = ConnectionProvider.builder("webhook-deliveries")
                .maxConnections(properties.connectionsPerHost())
                // Requests beyond the connections wait in their host's queue; the attempt's timeout bounds the wait.
                .pendingAcquireMaxCount(-1)
                .pendingAcquireTimeout(timeout)
                .maxIdleTime(Duration.ofSeconds(30))
                .build();
        // Event loops of its own: Reactor Netty's shared default loops also run the other HTTP clients of the JVM
        // (in the standalone system, the gateway's), which would then queue behind thousands of deliveries a second.
        this.loops = LoopResources.create("webhook-http", Math.max(1, Runtime.getRuntime().availableProcessors()),
                true);
        HttpClient client = HttpClient.create(pool).runOn(loops)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()))
                .followRedirect(false);
        AddressResolverGroup<?> custom = resolver.getIfAvailable();
        if (custom != null) {
            client = client.resolver(custom);
        }
        AddressPolicy policy = new AddressPolicy(properties.allowPrivate());
        this.plain = guarded(client, new AddressGuard(policy, "http"));
        this.secure = guarded(client, new AddressGuard(policy, "https"));
    }

    private static HttpClient guarded(HttpClient client, AddressGuard guard) {
        return client.doOnChannelInit((observer, channel, remote) -> channel.pipeline().addFirst(AddressGuard.NAME,
                guard))
                .doOnRequest((request, connection) -> request.currentContextView()
                        .<Runnable>getOrEmpty(ON_SENT).ifPresent(Runnable::run));
    }

    /**
     * Sends {@code body} to {@code url}, signed with each of {@code secrets} (one {@code v1=} each, in that order, all
     * over the same {@code t}), with the order's {@code traceparent} when not null. {@code onSent} runs when the
     * request goes out on a connection (after any wait for one), on its event loop.
     */
    public CompletableFuture<Outcome> send(String url, List<String> secrets, String event, String deliveryId,
                                           byte[] body, String traceparent, Runnable onSent) {
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.completedFuture(new Outcome(null, "Invalid url: " + e.getMessage()));
        }
        HttpClient client = "http".equalsIgnoreCase(uri.getScheme()) ? plain : secure;
        String signature = signature(secrets, clock.instant(), body);
        return client
                .headers(headers -> {
                    headers.set("content-type", "application/json")
                            .set("x-service-signature", signature)
                            .set("x-service-event", event)
                            .set("x-service-delivery", deliveryId);
                    if (traceparent != null) {
                        headers.set(TRACEPARENT, traceparent);
                    }
                })
                .post()
                .uri(uri)
                .send(Mono.fromSupplier(() -> Unpooled.wrappedBuffer(body)))
                // The answer's body is read and dropped (each buffer is released as it passes), so the connection
                // can go back to the pool.
                .response((response, content) -> content.then(Mono.just(response.status().code())))
                .single()
                .timeout(timeout)
                .map(status -> status >= 200 && status < 300
                        ? new Outcome(status, null)
                        : new Outcome(status, "HTTP " + status))
                .onErrorResume(failure -> Mono.just(new Outcome(null, describe(failure))))
                .contextWrite(Context.of(ON_SENT, onSent))
                .toFuture();
    }

    /** {@code t=<seconds>,v1=<digest>[,v1=<digest>...]}: the contract's header, with one digest per secret. */
    static String signature(List<String> secrets, Instant at, byte[] body) {
        StringBuilder header = new StringBuilder(WebhookSignature.sign(secrets.getFirst(), at, body));
        for (String secret : secrets.subList(1, secrets.size())) {
            String other = WebhookSignature.sign(secret, at, body);
            header.append(other, other.indexOf(",v1="), other.length());
        }
        return header.toString();
    }

    private String describe(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof AddressGuard.AddressRefusedException) {
                return cause.getMessage();
            }
        }
        if (failure instanceof TimeoutException) {
            return "No response within " + (timeout.toMillis() % 1000 == 0
                    ? timeout.toSeconds() + " s" : timeout.toMillis() + " ms");
        }
        if (failure instanceof ConnectException || failure.getCause() instanceof ConnectException) {
            return "Could not connect to the subscriber";
        }
        String message = failure.getMessage();
        return failure.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + message);
    }

    @Override
    public void close() {
        pool.dispose();
        loops.dispose();
    }
}
