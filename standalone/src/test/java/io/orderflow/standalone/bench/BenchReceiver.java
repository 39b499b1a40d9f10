package io.orderflow.standalone.bench;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.orderflow.schemas.signing.WebhookSignature;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
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
 * A benchmark webhook subscriber: Reactor Netty on loopback, on one event loop of its own, answering each delivery
 * with {@code status} once its body has arrived and {@code answerAfter} has passed (without holding the loop). It
 * keeps the first receipt of each delivery id (the {@code x-service-delivery} header) and checks the signature of
 * every 100th delivery (the whole check on each would cost the shared cores more than the dispatcher's signing does).
 * With {@code keepAttempts} it also keeps the time of every request of each delivery, for the spacing of retries.
 *
 * <p>A duplicate is a request for a delivery this had already answered with a 2xx in time: written to the connection
 * within the dispatcher's 10 s of the attempt's start, which the signature's {@code t} gives (the dispatcher signs
 * when the attempt starts, before it waits for a connection). An answer written later may have come after the
 * dispatcher stopped waiting, which makes the attempt a failure the contract retries; such answers are counted
 * apart, and a request after one is not a duplicate.
 */
final class BenchReceiver implements AutoCloseable {

    /** The first receipt of one delivery: its order, its event, the event's time and when it arrived (epoch ms). */
    record Receipt(String orderId, String event, long occurredAt, long receivedAt, long receivedNanos) {

        long lagMillis() {
            return receivedAt - occurredAt;
        }
    }

    /** What this receiver knows of one delivery id. */
    private static final class Seen {
        final Receipt first;
        volatile boolean answered;
        /** Epoch ms of each request, when attempts are kept; guarded by this. */
        long[] attempts;
        int requests;

        Seen(Receipt first) {
            this.first = first;
        }

        synchronized void request(long at, boolean keep) {
            if (keep) {
                attempts = attempts == null ? new long[] {at} : Arrays.copyOf(attempts, attempts.length + 1);
                attempts[attempts.length - 1] = at;
            }
            requests++;
        }

        synchronized long[] attempts() {
            return attempts == null ? new long[0] : attempts.clone();
        }
    }

    private static final int VERIFY_EVERY = 100;
    /** How long the dispatcher waits for an answer, from the attempt's start (WEBHOOK request timeout, 10 s). */
    private static final long DISPATCHER_TIMEOUT_MS = 10_000;

    private final LoopResources loop;
    private final DisposableServer server;
    private final int status;
    private final Duration answerAfter;
    private final boolean keepAttempts;
    private final Map<String, Seen> seen = new ConcurrentHashMap<>();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong answersNotTaken = new AtomicLong();
    private final AtomicLong lateAnswers = new AtomicLong();
    private final AtomicLong badSignatures = new AtomicLong();
    private final AtomicLong unreadable = new AtomicLong();
    private volatile String secret;

    /** Answers 200 at once. */
    BenchReceiver() {
        this("bench-receiver", 200, Duration.ZERO, false);
    }

    BenchReceiver(String name, int status, Duration answerAfter, boolean keepAttempts) {
        this.status = status;
        this.answerAfter = answerAfter;
        this.keepAttempts = keepAttempts;
        this.loop = LoopResources.create(name, 1, true);
        this.server = HttpServer.create().host("127.0.0.1").port(0).runOn(loop)
                .handle((request, response) -> request.receive().aggregate().asByteArray().defaultIfEmpty(new byte[0])
                        .flatMap(body -> {
                            String signature = request.requestHeaders().get("x-service-signature");
                            Seen delivery = received(request.requestHeaders().get("x-service-delivery"), signature,
                                    body);
                            long deadline = signedAt(signature) + DISPATCHER_TIMEOUT_MS;
                            Mono<Void> answer = Mono.defer(() -> response.status(HttpResponseStatus.valueOf(status))
                                    .send().then());
                            Mono<Void> sent = answerAfter.isPositive()
                                    ? Mono.delay(answerAfter).then(answer) : answer;
                            return sent.doOnSuccess(ignored -> {
                                if (delivery == null || status < 200 || status >= 300) {
                                    return;
                                }
                                if (System.currentTimeMillis() < deadline) {
                                    delivery.answered = true;
                                } else {
                                    lateAnswers.incrementAndGet();
                                }
                            }).doOnError(ignored -> answersNotTaken.incrementAndGet());
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

    /** The delivery's record of this request, or null when the request names no delivery this can read. */
    private Seen received(String deliveryId, String signature, byte[] body) {
        long now = System.currentTimeMillis();
        long nanos = System.nanoTime();
        long n = requests.incrementAndGet();
        if (n % VERIFY_EVERY == 0 && (secret == null || signature == null
                || !WebhookSignature.verifyDelivery(secret, signature, body, Instant.now()).valid())) {
            badSignatures.incrementAndGet();
        }
        String json = new String(body, StandardCharsets.UTF_8);
        String orderId = stringField(json, "orderId");
        String event = stringField(json, "event");
        long occurredAt = longField(json, "occurredAt");
        if (deliveryId == null || orderId == null || occurredAt < 0) {
            unreadable.incrementAndGet();
            return null;
        }
        Seen delivery = seen.computeIfAbsent(deliveryId,
                ignored -> new Seen(new Receipt(orderId, event, occurredAt, now, nanos)));
        if (delivery.answered) {
            duplicates.incrementAndGet();
        }
        delivery.request(now, keepAttempts);
        return delivery;
    }

    /** The first receipts of the deliveries of {@code orders}. */
    List<Receipt> receiptsOf(Set<String> orders) {
        List<Receipt> of = new ArrayList<>();
        for (Seen delivery : seen.values()) {
            if (orders.contains(delivery.first.orderId())) {
                of.add(delivery.first);
            }
        }
        return of;
    }

    /**
     * The request times (epoch ms, in the order they came) of each delivery of {@code orders}; empty arrays unless
     * attempts are kept.
     */
    List<long[]> attemptsOf(Set<String> orders) {
        List<long[]> of = new ArrayList<>();
        for (Seen delivery : seen.values()) {
            if (orders.contains(delivery.first.orderId())) {
                of.add(delivery.attempts());
            }
        }
        return of;
    }

    Collection<Receipt> all() {
        return seen.values().stream().map(delivery -> delivery.first).toList();
    }

    long requests() {
        return requests.get();
    }

    /** Requests for a delivery this had already answered with a 2xx. */
    long duplicates() {
        return duplicates.get();
    }

    /** Answers that could not be written: the dispatcher had given up on the request (its 10 s) and closed it. */
    long answersNotTaken() {
        return answersNotTaken.get();
    }

    /** 2xx answers written 10 s or more after their attempt started: the dispatcher may have stopped waiting. */
    long lateAnswers() {
        return lateAnswers.get();
    }

    /** The signature's {@code t} in epoch ms (whole seconds, so at most the attempt's start); 0 without one. */
    static long signedAt(String signature) {
        if (signature == null || !signature.startsWith("t=")) {
            return 0;
        }
        int end = signature.indexOf(',');
        try {
            return Long.parseLong(signature.substring(2, end < 0 ? signature.length() : end)) * 1000;
        } catch (NumberFormatException e) {
            return 0;
        }
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
