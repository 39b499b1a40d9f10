package io.orderflow.gateway.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * TEST ONLY. A stand-in for the webhook-dispatcher's internal subscription API on a local HTTP server: it records
 * every request and answers each path with a fixed reply, so tests see exactly what the gateway forwards.
 */
public final class FakeDispatcher implements AutoCloseable {

    /** One request as it arrived; {@code path} ends with the query string when there is one. */
    public record Request(String method, String path, String body) {
    }

    /** A replay with this {@code since} is answered as one refused by the rate limit: 429, {@code Retry-After: 42}. */
    public static final String RATE_LIMITED_SINCE = "1999-01-01T00:00:00Z";

    private final HttpServer server;
    private final List<Request> received = new CopyOnWriteArrayList<>();

    public FakeDispatcher() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/internal/subscriptions", this::handle);
        server.start();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public List<Request> received() {
        return List.copyOf(received);
    }

    private void handle(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getPath();
        String query = exchange.getRequestURI().getRawQuery();
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        received.add(new Request(method, query == null ? path : path + "?" + query, body));
        String[] parts = path.split("/");
        String id = parts.length > 3 ? parts[3] : null;
        boolean known = "whs_known".equals(id);
        int status;
        String answer;
        if (id == null && method.equals("POST")) {
            status = 201;
            answer = "{\"subscription\": {\"id\": \"whs_new\", \"url\": \"https://example.com/hook\", \"events\": [\"*\"]},"
                    + " \"secret\": \"whsec_1\"}";
        } else if (id == null) {
            status = 200;
            answer = "{\"subscriptions\": [{\"id\": \"whs_known\", \"url\": \"https://example.com/hook\", \"events\": [\"*\"]}]}";
        } else if (!known) {
            status = 404;
            answer = "{\"error\": \"Subscription " + id + " not found\"}";
        } else if (method.equals("GET") && parts.length == 4) {
            status = 200;
            answer = "{\"subscription\": {\"id\": \"whs_known\", \"url\": \"https://example.com/hook\","
                    + " \"events\": [\"*\"], \"createdAt\": 1, \"health\": \"failing\", \"lastSuccessAt\": null}}";
        } else if (method.equals("POST") && path.endsWith("/redeliver") && !path.contains("/dlv_known/")) {
            status = 404;
            answer = "{\"error\": \"Delivery " + parts[5] + " not found\"}";
        } else if (method.equals("POST") && path.endsWith("/redeliver")) {
            status = 200;
            answer = "{\"delivery\": {\"id\": \"dlv_known\", \"status\": \"delivered\", \"attempts\": 7}}";
        } else if (method.equals("POST") && path.endsWith("/replay") && body.contains(RATE_LIMITED_SINCE)) {
            status = 429;
            exchange.getResponseHeaders().set("retry-after", "42");
            answer = "{\"error\": \"A replay of whs_known ran less than 1 min ago; try again in 42 s\"}";
        } else if (method.equals("POST") && path.endsWith("/replay")) {
            status = 200;
            answer = "{\"count\": 3}";
        } else if (method.equals("POST") && path.endsWith("/rotate-secret")) {
            status = 200;
            answer = "{\"subscription\": {\"id\": \"whs_known\", \"url\": \"https://example.com/hook\","
                    + " \"events\": [\"*\"]}, \"secret\": \"whsec_2\"}";
        } else if (method.equals("DELETE")) {
            status = 200;
            answer = "{\"ok\": true}";
        } else {
            status = 200;
            answer = "{\"deliveries\": []}";
        }
        byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("content-type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
