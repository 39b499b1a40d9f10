package io.orderflow.gateway.socket;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.schemas.json.Json;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.http.HttpHeaders;
import org.springframework.web.reactive.socket.CloseStatus;
import org.springframework.web.reactive.socket.WebSocketMessage;
import org.springframework.web.reactive.socket.client.ReactorNettyWebSocketClient;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * TEST ONLY. A real WebSocket client of the order socket: pushes ({@code type}) and replies ({@code id}) are kept
 * apart, calls are numbered, and the close status the server sent is kept. Every wait is bounded.
 */
final class SocketClient implements AutoCloseable {

    private static final Duration WAIT = Duration.ofSeconds(15);

    private final BlockingQueue<JsonNode> pushes = new LinkedBlockingQueue<>();
    private final BlockingQueue<JsonNode> replies = new LinkedBlockingQueue<>();
    private final Sinks.Many<String> outgoing = Sinks.many().unicast().onBackpressureBuffer();
    private final CompletableFuture<CloseStatus> closed = new CompletableFuture<>();
    private final AtomicInteger ids = new AtomicInteger();
    private final Disposable connection;

    private SocketClient(URI uri, HttpHeaders headers) {
        CompletableFuture<Void> opened = new CompletableFuture<>();
        connection = new ReactorNettyWebSocketClient().execute(uri, headers, session -> {
            opened.complete(null);
            session.closeStatus().subscribe(closed::complete, closed::completeExceptionally,
                    () -> closed.complete(null));
            Mono<Void> in = session.receive().map(WebSocketMessage::getPayloadAsText).doOnNext(text -> {
                JsonNode message = Json.MAPPER.readTree(text);
                (message.has("type") ? pushes : replies).add(message);
            }).then();
            Mono<Void> out = session.send(outgoing.asFlux().map(session::textMessage));
            return Mono.firstWithSignal(in, out);
        }).subscribe(null, opened::completeExceptionally);
        opened.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
    }

    /** Opens a socket on {@code order} of the gateway at {@code base}, presenting {@code headers}. */
    static SocketClient open(URI base, String order, HttpHeaders headers) {
        return new SocketClient(socketUri(base, order), headers);
    }

    static URI socketUri(URI base, String order) {
        return URI.create("ws://" + base.getAuthority() + "/api/v1/orders/" + order + "/socket");
    }

    /** The next push from the server. */
    JsonNode nextPush() {
        return take(pushes, "a push");
    }

    /** The next state push; its {@code state}. */
    JsonNode nextState() {
        JsonNode push = nextPush();
        assertThat(push.get("type").asString()).as("push %s", push).isEqualTo("state");
        return push.get("state");
    }

    /** The first state pushed from now on that satisfies {@code condition}; earlier states are skipped. */
    JsonNode stateWhere(java.util.function.Predicate<JsonNode> condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode push = take(pushes, "a state push");
            if ("state".equals(push.path("type").asString("")) && condition.test(push.get("state"))) {
                return push.get("state");
            }
        }
        throw new AssertionError("no state push within " + WAIT + " satisfied the condition");
    }

    /** Sends a raw text frame. */
    void sendRaw(String text) {
        assertThat(outgoing.tryEmitNext(text).isSuccess()).isTrue();
    }

    /** Calls {@code method} with {@code params} (JSON) and answers the reply with the call's id. */
    JsonNode call(String method, String params) {
        int id = ids.incrementAndGet();
        ObjectNode request = Json.object().put("id", id).put("method", method);
        request.set("params", Json.MAPPER.readTree(params));
        sendRaw(Json.write(request));
        JsonNode reply = take(replies, "the reply to " + method);
        assertThat(reply.get("id").asInt()).as("reply %s", reply).isEqualTo(id);
        return reply;
    }

    /** The next reply, whatever its id. */
    JsonNode nextReply() {
        return take(replies, "a reply");
    }

    /** The close status the server ended the socket with. */
    CloseStatus closeStatus() {
        return closed.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
    }

    boolean isOpen() {
        return !closed.isDone();
    }

    private static JsonNode take(BlockingQueue<JsonNode> queue, String what) {
        try {
            JsonNode message = queue.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(message).as("%s within %s", what, WAIT).isNotNull();
            return message;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Override
    public void close() {
        outgoing.tryEmitComplete();
        connection.dispose();
    }
}
