package io.orderflow.standalone.bench;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.orderflow.schemas.signing.WebhookSignature;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

/**
 * The benchmark's webhook subscriber ({@code --subscriber=true}): Reactor Netty on loopback, on one event loop of its
 * own, answering 200 as soon as a delivery's body has arrived. It keeps the first receipt of each delivery id (the
 * {@code x-service-delivery} header) and counts the rest as duplicates, and checks the signature of every 100th
 * delivery (the whole check on each would cost the shared cores more than the dispatcher's signing does).
 */
final class BenchReceiver implements AutoCloseable {

    /** The first receipt of one delivery: its order, the event's time and when it arrived, both epoch ms. */
    record Receipt(String orderId, long occurredAt, long receivedAt, long receivedNanos) {

        long lagMillis() {
            return receivedAt - occurredAt;
        }
    }

    private static final int VERIFY_EVERY = 100;

    private final LoopResources loop = LoopResources.create("bench-receiver", 1, true);
    private final DisposableServer server;
    private final Map<String, Receipt> receipts = new ConcurrentHashMap<>();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong badSignatures = new AtomicLong();
    private final AtomicLong unreadable = new AtomicLong();
    private volatile String secret;

    BenchReceiver() {
        server = HttpServer.create().host("127.0.0.1").port(0).runOn(loop)
                .handle((request, response) -> request.receive().aggregate().asByteArray().defaultIfEmpty(new byte[0])
                        .flatMap(body -> {
                            received(request.requestHeaders().get("x-service-delivery"),
                                    request.requestHeaders().get("x-service-signature"), body);
                            return response.status(HttpResponseStatus.OK).send().then();
                        })
                        .then(Mono.empty()))
                .bindNow();
    }

    String url() {
        return "http://127.0.0.1:" + server.port() + "/hook";
    }

    void verifyWith(String secret) {
        this.secret = secret;
    }

    private void received(String deliveryId, String signature, byte[] body) {
        long now = System.currentTimeMillis();
        long nanos = System.nanoTime();
        long n = requests.incrementAndGet();
        if (n % VERIFY_EVERY == 0 && (secret == null || signature == null
                || !WebhookSignature.verifyDelivery(secret, signature, body, Instant.now()).valid())) {
            badSignatures.incrementAndGet();
        }
        String json = new String(body, StandardCharsets.UTF_8);
        String orderId = stringField(json, "orderId");
        long occurredAt = longField(json, "occurredAt");
        if (deliveryId == null || orderId == null || occurredAt < 0) {
            unreadable.incrementAndGet();
            return;
        }
        if (receipts.putIfAbsent(deliveryId, new Receipt(orderId, occurredAt, now, nanos)) != null) {
            duplicates.incrementAndGet();
        }
    }

    /** The first receipts of the deliveries of {@code orders}. */
    List<Receipt> receiptsOf(Set<String> orders) {
        List<Receipt> of = new ArrayList<>();
        for (Receipt receipt : receipts.values()) {
            if (orders.contains(receipt.orderId())) {
                of.add(receipt);
            }
        }
        return of;
    }

    Collection<Receipt> all() {
        return receipts.values();
    }

    long requests() {
        return requests.get();
    }

    long duplicates() {
        return duplicates.get();
    }

    long badSignatures() {
        return badSignatures.get();
    }

    long unreadable() {
        return unreadable.get();
    }

    /** A top-level string field of the delivery body, read without a JSON parser (the body is the dispatcher's). */
    static String stringField(String json, String name) {
        int at = json.indexOf("\"" + name + "\":\"");
        if (at < 0) {
            return null;
        }
        int start = at + name.length() + 4;
        int end = json.indexOf('"', start);
        return end < 0 ? null : json.substring(start, end);
    }

    /** A top-level number field of the delivery body, or -1. */
    static long longField(String json, String name) {
        int at = json.indexOf("\"" + name + "\":");
        if (at < 0) {
            return -1;
        }
        int start = at + name.length() + 3;
        int end = start;
        while (end < json.length() && Character.isDigit(json.charAt(end))) {
            end++;
        }
        return end == start ? -1 : Long.parseLong(json.substring(start, end));
    }

    @Override
    public void close() {
        server.disposeNow();
        loop.dispose();
    }
}
