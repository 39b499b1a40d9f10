package io.orderflow.standalone;

import io.orderflow.schemas.json.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * TEST ONLY. A JDK WebSocket client of the order socket ({@code /api/v1/orders/{id}/socket}): every text message in
 * the order it arrived, with its arrival time. Every wait is bounded.
 */
final class OrderSocket implements WebSocket.Listener, AutoCloseable {

    private static final Duration WAIT = Duration.ofSeconds(30);

    /** A message and the {@link System#nanoTime()} it arrived at. */
    record Received(JsonNode message, long at) {
    }

    private final BlockingQueue<Received> messages = new LinkedBlockingQueue<>();
    private final StringBuilder partial = new StringBuilder();
    private final AtomicInteger ids = new AtomicInteger();
    private final WebSocket socket;

    OrderSocket(HttpClient http, String base, String order) {
        socket = http.newWebSocketBuilder().buildAsync(URI.create(base.replace("http://", "ws://")
                + "/api/v1/orders/" + order + "/socket"), this).orTimeout(30, TimeUnit.SECONDS).join();
    }

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
        partial.append(data);
        if (last) {
            long at = System.nanoTime(); // when it arrived, not when a test looked
            messages.add(new Received(Json.MAPPER.readTree(partial.toString()), at));
            partial.setLength(0);
        }
        webSocket.request(1);
        return null;
    }

    void send(String text) {
        socket.sendText(text, true).join();
    }

    /** Calls {@code method} with {@code params} (JSON) and answers its reply; pushes before it are skipped. */
    JsonNode call(String method, String params) throws InterruptedException {
        int id = ids.incrementAndGet() + 1000;
        ObjectNode request = Json.object().put("id", id).put("method", method);
        request.set("params", Json.MAPPER.readTree(params));
        send(Json.write(request));
        return next(m -> m.path("id").asInt(-1) == id).message();
    }

    /** The first state pushed from now on that satisfies {@code condition}. */
    JsonNode state(Predicate<JsonNode> condition) throws InterruptedException {
        return next(m -> "state".equals(m.path("type").asString("")) && condition.test(m.get("state")))
                .message().get("state");
    }

    /** The next message that satisfies {@code condition}, with its arrival time; others are skipped. */
    Received next(Predicate<JsonNode> condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            Received message = messages.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (message != null && condition.test(message.message())) {
                return message;
            }
        }
        throw new AssertionError("no matching message within " + WAIT);
    }

    @Override
    public void close() {
        socket.sendClose(WebSocket.NORMAL_CLOSURE, "done").orTimeout(5, TimeUnit.SECONDS)
                .exceptionally(e -> null).join();
    }
}
