package io.orderflow.gateway.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.query.OrderView;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Collectors;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * TEST ONLY. A stand-in for the processor's internal query API ({@code /internal/orders...}) over the
 * {@link FakeProcessor}'s orders, on a local HTTP server.
 */
public final class FakeQueryApi implements AutoCloseable {

    /** How long after its start a fake order's open wait is due (the processor's states always carry a deadline). */
    private static final long WAIT = java.time.Duration.ofDays(2).toMillis();

    private final HttpServer server;
    private final FakeProcessor processor;
    private final AtomicReference<String> lastListQuery = new AtomicReference<>();
    private final AtomicReference<String> lastApprovalsQuery = new AtomicReference<>();
    private volatile int extraRows;

    public FakeQueryApi(FakeProcessor processor) {
        this.processor = processor;
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/internal/orders", this::handle);
        server.createContext("/internal/incidents", exchange -> respond(exchange, 200,
                Json.object().set("incidents", Json.MAPPER.createArrayNode())));
        server.createContext("/internal/order-counts", this::counts);
        server.createContext("/internal/approvals", this::approvals);
        server.start();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The raw query string of the last list request. */
    public String lastListQuery() {
        return lastListQuery.get();
    }

    /** Makes the list match this many extra made-up rows besides the orders started (a long list, paged). */
    public void answerExtraRows(int rows) {
        extraRows = rows;
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        if (path.equals("/internal/orders")) {
            lastListQuery.set(exchange.getRequestURI().getRawQuery());
            Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
            ObjectNode page = list(query);
            if (Boolean.parseBoolean(query.get("cursorInHeader")) && page.has("next")) {
                exchange.getResponseHeaders().set("Orderflow-Next", page.remove("next").asString());
            }
            respond(exchange, 200, page);
            return;
        }
        String id = path.substring("/internal/orders/".length());
        FakeProcessor.FakeOrder order = processor.orders().get(id);
        if (order == null) {
            respond(exchange, 404, Json.object().put("error", "Order " + id + " not found"));
        } else {
            // the processor's answer is an OrderView: made from one, the fake has every member the processor writes
            List<OrderView.Wait> waits = new ArrayList<>();
            if (order.waitingApprovalNode() != null) {
                waits.add(new OrderView.Wait(order.waitingApprovalNode(), "approval", "Manager approval", "approval",
                        "manager", null, order.createdAt() + WAIT, order.createdAt()));
            }
            if (order.waitingEvent() != null) {
                waits.add(new OrderView.Wait("wait_payment", "event", "Wait for " + order.waitingEvent(),
                        order.waitingEvent(), null, null, order.createdAt() + WAIT, order.createdAt()));
            }
            ObjectNode state = (ObjectNode) Json.tree(new OrderView(id, OrderStatus.fromWire(order.status()), null,
                    Json.object().put("id", id).put("type", order.type()), null, Map.of(), Map.of(), waits,
                    Json.object(), List.of(new OrderView.TimelineItem(order.createdAt(), "start",
                    "Started on flow storefront_order version 1", null, null)), processor.chat(id), id + ".1", 1,
                    null, processor.version(id)));
            // as the processor does, the version goes out as the answer's ETag too
            exchange.getResponseHeaders().set("ETag", "\"" + processor.version(id) + "\"");
            respond(exchange, 200, state);
        }
    }

    /** Counts by status of the fake orders, every status present. */
    private void counts(HttpExchange exchange) throws IOException {
        ObjectNode body = Json.object();
        ObjectNode counts = body.putObject("counts");
        for (String status : java.util.List.of("queued", "running", "waiting", "completed", "declined", "cancelled",
                "failed", "rolled_back")) {
            counts.put(status, processor.orders().values().stream().filter(o -> o.status().equals(status)).count());
        }
        body.put("total", processor.orders().size());
        respond(exchange, 200, body);
    }

    /** One pending approval row per fake order waiting at an approval. */
    private void approvals(HttpExchange exchange) throws IOException {
        lastApprovalsQuery.set(exchange.getRequestURI().getRawQuery());
        ObjectNode body = Json.object();
        ArrayNode rows = body.putArray("approvals");
        processor.orders().values().stream().filter(o -> o.waitingApprovalNode() != null)
                .forEach(o -> rows.addObject().put("orderId", o.orderId()).put("nodeId", o.waitingApprovalNode())
                        .put("title", "Manager approval").put("assignee", "manager").put("status", "pending")
                        .put("createdAt", o.createdAt()));
        respond(exchange, 200, body);
    }

    /** The raw query string of the last approvals request. */
    public String lastApprovalsQuery() {
        return lastApprovalsQuery.get();
    }

    /** The matching orders, newest first, at most {@code limit}; {@code next} (a made-up cursor) when more match. */
    private ObjectNode list(Map<String, String> query) {
        ObjectNode body = Json.object();
        ArrayNode rows = body.putArray("orders");
        int limit = Integer.parseInt(query.getOrDefault("limit", "200"));
        java.util.List<FakeProcessor.FakeOrder> matching = processor.orders().values().stream()
                .filter(o -> !query.containsKey("type") || o.type().equals(query.get("type")))
                .filter(o -> !query.containsKey("status") || o.status().equals(query.get("status")))
                .filter(o -> !query.containsKey("q") || o.orderId().contains(query.get("q")))
                .sorted(Comparator.comparingLong(FakeProcessor.FakeOrder::createdAt).reversed())
                .toList();
        matching.stream().limit(limit)
                .forEach(o -> rows.addObject().put("id", o.orderId()).put("type", o.type()).put("status", o.status())
                        .put("createdAt", o.createdAt()));
        for (int i = 0; i < extraRows && rows.size() < limit; i++) {
            rows.addObject().put("id", "ord_extra" + i).put("type", "reorder").put("status", "queued");
        }
        if (matching.size() + extraRows > limit) {
            body.put("next", "fake-next-page");
        }
        return body;
    }

    private static Map<String, String> query(String raw) {
        if (raw == null || raw.isEmpty()) {
            return Map.of();
        }
        Function<String, String> decode = s -> URLDecoder.decode(s, StandardCharsets.UTF_8);
        return Arrays.stream(raw.split("&")).map(p -> p.split("=", 2))
                .collect(Collectors.toMap(p -> decode.apply(p[0]), p -> p.length > 1 ? decode.apply(p[1]) : ""));
    }

    private static void respond(HttpExchange exchange, int status, ObjectNode body) throws IOException {
        byte[] bytes = Json.MAPPER.writeValueAsBytes(body);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
