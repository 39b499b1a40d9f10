package io.orderflow.gateway.socket;

import io.orderflow.gateway.auth.CallerAuthentication;
import io.orderflow.gateway.limits.ChatLimits;
import io.orderflow.schemas.events.OrderUpdate;
import io.orderflow.schemas.json.Json;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.socket.CloseStatus;
import org.springframework.web.reactive.socket.WebSocketHandler;
import org.springframework.web.reactive.socket.WebSocketMessage;
import org.springframework.web.reactive.socket.WebSocketSession;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.node.ObjectNode;

/**
 * The list socket of the dashboard's list pages (orders, approvals inbox): {@code GET /api/v1/order-updates/socket}
 * pushes {@code { type: "changed", orders: [ids], statuses: {id: status} } } after orders changed, so a list reloads
 * within about a second of a change made elsewhere instead of on a timer. It says only which orders changed; the page
 * reads its list again through the API, as the caller.
 *
 * <p>Its cost is bounded: the notices of {@value #WINDOW_MS} ms are sent as one message of at most {@value #MOST_IDS}
 * ids (more than that: the ids are left out and {@code many: true} says so), at most one message per window, the
 * latest kept when the client reads slowly; and the socket counts against its caller's {@code SOCKETS_PER_CALLER} like
 * an order socket. The client sends nothing; whatever it sends is ignored.
 */
@Component
public class OrderListSocketHandler implements WebSocketHandler {

    public static final String PATH = "/api/v1/order-updates/socket";
    static final long WINDOW_MS = 250;
    static final int MOST_IDS = 100;

    private final OrderUpdates updates;
    private final ChatLimits limits;

    OrderListSocketHandler(OrderUpdates updates, ChatLimits limits) {
        this.updates = updates;
        this.limits = limits;
    }

    @Override
    public Mono<Void> handle(WebSocketSession session) {
        return session.getHandshakeInfo().getPrincipal().ofType(CallerAuthentication.class)
                .map(Optional::of).defaultIfEmpty(Optional.empty())
                .flatMap(upgrade -> upgrade.isPresent() ? counted(session, upgrade.get())
                        : session.close(OrderSocketHandler.SIGN_IN_ENDED));
    }

    private Mono<Void> counted(WebSocketSession session, CallerAuthentication upgrade) {
        InetSocketAddress remote = session.getHandshakeInfo().getRemoteAddress();
        String caller = ChatLimits.callerKey(upgrade.caller(), remote == null || remote.getAddress() == null
                ? "unknown" : remote.getAddress().getHostAddress());
        if (!limits.openSocket(caller)) {
            String refusal = Json.write(Json.object().put("type", "error").put("error", ChatLimits.TOO_MANY_SOCKETS));
            return session.send(Mono.just(session.textMessage(refusal)))
                    .then(session.close(OrderSocketHandler.TOO_MANY_SOCKETS));
        }
        return serve(session).doFinally(signal -> limits.closeSocket(caller));
    }

    private Mono<Void> serve(WebSocketSession session) {
        Flux<WebSocketMessage> out = updates.ofEveryOrder()
                .bufferTimeout(MOST_IDS * 4, Duration.ofMillis(WINDOW_MS))
                .onBackpressureLatest()
                .concatMap(batch -> Mono.just(batch).concatWith(Mono.delay(Duration.ofMillis(WINDOW_MS)).then(
                        Mono.empty())), 1)
                .map(batch -> session.textMessage(Json.write(changed(batch))));
        // the socket lives until the client leaves; what it sends is read and dropped
        Mono<Void> in = session.receive().then();
        return Mono.firstWithSignal(session.send(out), in)
                .then(Mono.defer(() -> session.close(CloseStatus.NORMAL)))
                .onErrorResume(e -> session.close(CloseStatus.SERVER_ERROR.withReason("Socket failed")));
    }

    static ObjectNode changed(List<OrderUpdate> batch) {
        LinkedHashSet<String> ids = new LinkedHashSet<>();
        ObjectNode statuses = Json.object();
        for (OrderUpdate update : batch) {
            if (update.orderId() != null && (ids.size() < MOST_IDS || ids.contains(update.orderId()))) {
                ids.add(update.orderId());
                if (update.status() != null) {
                    statuses.put(update.orderId(), update.status().wire());
                }
            }
        }
        ObjectNode message = Json.object().put("type", "changed");
        boolean many = batch.stream().map(OrderUpdate::orderId).distinct().count() > ids.size();
        if (many) {
            message.put("many", true);
            message.putArray("orders");
        } else {
            ids.forEach(message.putArray("orders")::add);
            message.set("statuses", statuses);
        }
        return message;
    }
}
