package io.orderflow.gateway.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.orderflow.schemas.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * TEST ONLY. A local server that speaks the OpenAI chat-completions protocol ({@code POST .../chat/completions}) and
 * answers from a script: a content string, an HTTP error, or a delay longer than the client's timeout. It keeps every
 * request it got (path, headers, body) so a test can check what the model was shown.
 */
public final class StubModel implements AutoCloseable {

    /** One scripted answer. */
    public record Answer(int status, String content, Duration delay) {

        /** A 200 whose first choice's message content is {@code content}. */
        public static Answer content(String content) {
            return new Answer(200, content, Duration.ZERO);
        }

        public static Answer status(int status) {
            return new Answer(status, null, Duration.ZERO);
        }

        /** A valid answer that only comes after {@code delay}. */
        public static Answer late(Duration delay, String content) {
            return new Answer(200, content, delay);
        }
    }

    /** A request the stub got. */
    public record Request(String path, String authorization, JsonNode body) {

        /** The contents of its messages, joined: what the model was shown. */
        public String shown() {
            StringBuilder shown = new StringBuilder();
            body.path("messages").forEach(m -> shown.append(m.path("role").asString("")).append(": ")
                    .append(m.path("content").asString("")).append('\n'));
            return shown.toString();
        }
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(4);
    private final BlockingQueue<Answer> script = new LinkedBlockingQueue<>();
    private final List<Request> requests = new CopyOnWriteArrayList<>();

    public StubModel() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    /** The base URL to configure as {@code AI_BASE_URL} (the client appends {@code /chat/completions}). */
    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    /** The server's root, for {@code AI_GATEWAY_URL}. */
    public String root() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Queues answers, answered in order; with none queued the stub answers 503. */
    public void script(Answer... answers) {
        script.clear();
        requests.clear();
        script.addAll(List.of(answers));
    }

    public List<Request> requests() {
        return requests;
    }

    private void handle(HttpExchange exchange) throws IOException {
        JsonNode body = Json.MAPPER.readTree(exchange.getRequestBody().readAllBytes());
        requests.add(new Request(exchange.getRequestURI().getPath(),
                exchange.getRequestHeaders().getFirst("Authorization"), body));
        Answer answer = script.poll();
        if (answer == null) {
            answer = Answer.status(503);
        }
        if (!answer.delay().isZero()) {
            try {
                Thread.sleep(answer.delay().toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        byte[] bytes;
        if (answer.status() != 200) {
            bytes = Json.write(Json.object().set("error", Json.object().put("message", "stub failure")
                    .put("type", "server_error"))).getBytes(StandardCharsets.UTF_8);
        } else {
            ObjectNode completion = Json.object().put("id", "chatcmpl-stub").put("object", "chat.completion")
                    .put("created", 1_767_225_600L).put("model", body.path("model").asString("stub"));
            ObjectNode choice = completion.putArray("choices").addObject().put("index", 0)
                    .put("finish_reason", "stop");
            choice.putObject("message").put("role", "assistant").put("content", answer.content());
            completion.putObject("usage").put("prompt_tokens", 1).put("completion_tokens", 1)
                    .put("total_tokens", 2);
            bytes = Json.write(completion).getBytes(StandardCharsets.UTF_8);
        }
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        try {
            exchange.sendResponseHeaders(answer.status(), bytes.length);
            exchange.getResponseBody().write(bytes);
        } catch (IOException e) {
            // the client gave up (its timeout): nobody reads this answer
        } finally {
            exchange.close();
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
