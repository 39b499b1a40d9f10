package io.orderflow.dispatcher.dispatch;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.orderflow.schemas.signing.WebhookSignature;
import io.orderflow.schemas.json.Json;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;

/**
 * A webhook subscriber on loopback: verifies every delivery the way the spec's "Verifying a delivery" says (raw body
 * before parsing, HMAC-SHA256 of {@code <t>.<raw body>} compared in constant time, {@code t} within 5 minutes,
 * otherwise 401; any one {@code v1} matching, as during a secret rotation), and answers as told: fail the first N
 * requests with a status, answer late, or never answer.
 */
final class TestReceiver implements AutoCloseable {

    /** One request as it arrived. */
    record Received(Instant at, String signature, String contentType, String event, String deliveryId,
                    byte[] rawBody, boolean signatureValid, String traceparent) {

        JsonNode body() {
            return Json.MAPPER.readTree(rawBody);
        }
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final CountDownLatch closed = new CountDownLatch(1);
    private volatile String secret;
    private volatile int failuresLeft;
    private volatile int failureStatus = 500;
    private volatile boolean neverAnswer;
    private volatile Duration answerAfter = Duration.ZERO;
    /** While not null: every request waits for it before it is answered 200 ({@link #release}). */
    private volatile CountDownLatch held;

    private TestReceiver() throws IOException {
        this(0);
    }

    private TestReceiver(int port) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        server.setExecutor(executor);
        server.createContext("/hook", this::handle);
        server.start();
    }

    static TestReceiver answering() throws IOException {
        return new TestReceiver();
    }

    /** Answers 200 to every request, on {@code port} of loopback (a subscriber coming back where it was). */
    static TestReceiver answeringOn(int port) throws IOException {
        return new TestReceiver(port);
    }

    static TestReceiver failing(int times, int status) throws IOException {
        TestReceiver receiver = new TestReceiver();
        receiver.failuresLeft = times;
        receiver.failureStatus = status;
        return receiver;
    }

    /** Answers 200 to every request, each only after {@code delay} (unless closed first). */
    static TestReceiver answeringAfter(Duration delay) throws IOException {
        TestReceiver receiver = new TestReceiver();
        receiver.answerAfter = delay;
        return receiver;
    }

    /** Holds every request until {@link #release} (or close), then answers 200. */
    static TestReceiver holding() throws IOException {
        TestReceiver receiver = new TestReceiver();
        receiver.held = new CountDownLatch(1);
        return receiver;
    }

    /** Holds every later request until {@link #release} (or close), then answers 200. */
    void hold() {
        held = new CountDownLatch(1);
    }

    /** Answers the requests held so far, and every later one at once. */
    void release() {
        CountDownLatch latch = held;
        held = null;
        if (latch != null) {
            latch.countDown();
        }
    }

    static TestReceiver neverAnswering() throws IOException {
        TestReceiver receiver = new TestReceiver();
        receiver.neverAnswer = true;
        return receiver;
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
    }

    void verifyWith(String secret) {
        this.secret = secret;
    }

    List<Received> received() {
        return List.copyOf(received);
    }

    int inFlight() {
        return inFlight.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        inFlight.incrementAndGet();
        try (exchange) {
            byte[] raw = exchange.getRequestBody().readAllBytes();
            String signature = exchange.getRequestHeaders().getFirst("x-service-signature");
            boolean valid = secret != null && signature != null && signedWith(secret, signature, raw);
            received.add(new Received(Instant.now(), signature, exchange.getRequestHeaders().getFirst("content-type"),
                    exchange.getRequestHeaders().getFirst("x-service-event"),
                    exchange.getRequestHeaders().getFirst("x-service-delivery"), raw, valid,
                    exchange.getRequestHeaders().getFirst("traceparent")));
            if (!valid) {
                respond(exchange, 401);
            } else if (neverAnswer) {
                closed.await();
            } else if (held != null) {
                CountDownLatch latch = held;
                while (latch != null && !latch.await(100, TimeUnit.MILLISECONDS) && closed.getCount() > 0) {
                    latch = held;
                }
                respond(exchange, 200);
            } else if (answerAfter.isPositive()) {
                closed.await(answerAfter.toMillis(), TimeUnit.MILLISECONDS);
                respond(exchange, 200);
            } else if (failuresLeft > 0) {
                failuresLeft--;
                respond(exchange, failureStatus);
            } else {
                respond(exchange, 200);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            inFlight.decrementAndGet();
        }
    }

    /**
     * Whether any {@code v1} of the header verifies with {@code secret}: while a subscription's secret is rotated,
     * a delivery carries one {@code v1} per secret, and a receiver holding either accepts it.
     */
    static boolean signedWith(String secret, String header, byte[] raw) {
        return WebhookSignature.verifyDelivery(secret, header, raw, Instant.now()).valid();
    }

    /** {@code t=1,v1=a,v1=b} as {@code [t=1,v1=a, t=1,v1=b]}, each verifiable on its own. */
    static List<String> singleSignatures(String header) {
        List<String> parts = List.of(header.split(","));
        List<String> timestamps = parts.stream().filter(p -> p.startsWith("t=")).toList();
        if (timestamps.size() != 1) {
            return List.of(header);
        }
        return parts.stream().filter(p -> p.startsWith("v1=")).map(v1 -> timestamps.getFirst() + "," + v1).toList();
    }

    private static void respond(HttpExchange exchange, int status) throws IOException {
        exchange.sendResponseHeaders(status, -1);
    }

    @Override
    public void close() {
        closed.countDown();
        server.stop(0);
        executor.shutdownNow();
    }
}
