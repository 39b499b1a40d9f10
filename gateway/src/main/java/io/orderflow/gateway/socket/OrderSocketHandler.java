package io.orderflow.gateway.socket;

import io.orderflow.gateway.limits.ChatLimits;
import java.net.InetSocketAddress;
import io.orderflow.gateway.api.ApiException;
import io.orderflow.gateway.auth.CallerAuthentication;
import io.orderflow.gateway.chat.OpsChat;
import io.orderflow.gateway.orders.OrderIds;
import io.orderflow.gateway.orders.ProcessorClient;
import io.orderflow.schemas.json.Json;
import java.net.URI;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.PathContainer;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.socket.CloseStatus;
import org.springframework.web.reactive.socket.WebSocketHandler;
import org.springframework.web.reactive.socket.WebSocketMessage;
import org.springframework.web.reactive.socket.WebSocketSession;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The order socket of the dashboard's order page ({@code GET /api/v1/orders/{id}/socket}), as a transport. The
 * server pushes {@code { type: "state", state }} on connect and after every {@code order-updates} notice for the
 * order; the client calls {@code { id, method, params }} and gets {@code { id, result }} or {@code { id, error }}
 * ({@link SocketCalls}). Each method becomes the same command the REST route sends, so the order's agent stays the
 * only writer.
 *
 * <p>Calls of one socket run one at a time, in the order they arrive, except {@code chat}, which runs the ops chat's
 * loop ({@link OpsChat}) beside them. {@code decide} and {@code cancel} with a {@code proposalId} confirm a chat
 * proposal ({@link SocketProposals}).
 */
@Component
public class OrderSocketHandler implements WebSocketHandler {

    public static final String PATH = "/api/v1/orders/{id}/socket";
    /** The socket's close code for a sign-in that has ended (rule 6). */
    public static final CloseStatus SIGN_IN_ENDED = new CloseStatus(4401, "Sign-in ended");
    /** The socket's close code for a caller who has {@code SOCKETS_PER_CALLER} sockets open already. */
    public static final CloseStatus TOO_MANY_SOCKETS = new CloseStatus(4429, "Too many sockets");
    /** The socket's close code for an order that does not exist. */
    public static final CloseStatus ORDER_NOT_FOUND = new CloseStatus(4404, "Order not found");
    /** Chats of one socket that run at once; more wait their turn (a page sends one at a time anyway). */
    static final int CHATS_PER_SOCKET = 2;
    private static final PathPattern PATTERN = PathPatternParser.defaultInstance.parse(PATH);
    private static final Logger log = LoggerFactory.getLogger(OrderSocketHandler.class);

    private final ProcessorClient processor;
    private final OrderUpdates updates;
    private final SocketCalls calls;
    private final ChatLimits limits;

    OrderSocketHandler(ProcessorClient processor, OrderUpdates updates, SocketCalls calls, ChatLimits limits) {
        this.processor = processor;
        this.updates = updates;
        this.calls = calls;
        this.limits = limits;
    }

    @Override
    public Mono<Void> handle(WebSocketSession session) {
        String orderId = orderId(session.getHandshakeInfo().getUri());
        return session.getHandshakeInfo().getPrincipal().ofType(CallerAuthentication.class)
                .map(Optional::of).defaultIfEmpty(Optional.empty())
                // the upgrade already refused a request without a principal; this keeps the socket honest without it
                .flatMap(upgrade -> upgrade.isPresent() ? counted(session, orderId, upgrade.get())
                        : session.close(SIGN_IN_ENDED));
    }

    /** Serves the socket while it counts against its caller's {@code SOCKETS_PER_CALLER}; refuses one too many. */
    private Mono<Void> counted(WebSocketSession session, String orderId, CallerAuthentication upgrade) {
        InetSocketAddress remote = session.getHandshakeInfo().getRemoteAddress();
        String caller = ChatLimits.callerKey(upgrade.caller(), remote == null || remote.getAddress() == null
                ? "unknown" : remote.getAddress().getHostAddress());
        if (!limits.openSocket(caller)) {
            String refusal = Json.write(Json.object().put("type", "error").put("error", ChatLimits.TOO_MANY_SOCKETS));
            return session.send(Mono.just(session.textMessage(refusal))).then(session.close(TOO_MANY_SOCKETS));
        }
        return serve(session, orderId, upgrade, caller).doFinally(signal -> limits.closeSocket(caller));
    }

    private Mono<Void> serve(WebSocketSession session, String orderId, CallerAuthentication upgrade, String caller) {
        // Subscribe to the notices first, then read the state: a change between the two is pushed, never lost.
        // A burst of notices while a read runs collapses into one more read.
        Flux<SocketOut> states = Flux.merge(updates.of(orderId).map(update -> "changed"), Mono.just("connected"))
                .onBackpressureLatest()
                .concatMap(trigger -> state(orderId), 1);
        // Ending the output must not cancel the inbound: Reactor Netty answers an inbound cancel with a close frame
        // without a status, ahead of ours (4401, 4404). Detached, the inbound lives until the client closes.
        Flux<String> frames = session.receive().map(WebSocketMessage::getPayloadAsText).publish().autoConnect();
        // Calls run one at a time in arrival order, except chat: a chat runs model turns for seconds, so it runs
        // beside the other calls (a decide during a chat is not held up) and answers when its loop has finished.
        Flux<SocketOut> replies = frames
                .publish(shared -> Flux.merge(
                        shared.filter(text -> !SocketCalls.isChat(text))
                                .concatMap(text -> calls.call(text, orderId, upgrade, caller)),
                        shared.filter(SocketCalls::isChat)
                                .flatMap(text -> calls.call(text, orderId, upgrade, caller), CHATS_PER_SOCKET)))
                .concatWith(Mono.just(SocketOut.CLIENT_LEFT));
        AtomicReference<CloseStatus> closeWith = new AtomicReference<>(CloseStatus.NORMAL);
        Flux<WebSocketMessage> out = Flux.merge(states, replies)
                .takeUntil(SocketOut::ends)
                .doOnNext(message -> {
                    if (message.ends()) {
                        closeWith.set(message.close());
                    }
                })
                .filter(message -> message.json() != null)
                .map(message -> session.textMessage(message.json()));
        // the closing message is written before the close frame: send completes once everything is flushed
        return session.send(out).then(Mono.defer(() -> session.close(closeWith.get())))
                .onErrorResume(e -> session.close(CloseStatus.SERVER_ERROR.withReason("Socket failed")));
    }

    /** The order's live state as {@code GET /api/v1/orders/{id}} answers it; an unknown order ends the socket. */
    private Mono<SocketOut> state(String orderId) {
        if (!OrderIds.isOrderId(orderId)) {
            return Mono.just(notFound(orderId));
        }
        return processor.view(orderId)
                .map(SocketOut::state)
                .onErrorResume(e -> {
                    if (e instanceof ApiException api && api.status() == HttpStatus.NOT_FOUND) {
                        return Mono.just(notFound(orderId));
                    }
                    // the next notice reads again; a failed read does not end the socket
                    log.warn("Could not read the state of {} for its sockets: {}", orderId, e.getMessage());
                    String message = e instanceof ApiException api ? api.getMessage()
                            : "The order's state could not be read; it is pushed again on the next change";
                    return Mono.just(SocketOut.pushedError(message));
                });
    }

    private static SocketOut notFound(String orderId) {
        return new SocketOut(Json.write(Json.object().put("type", "error").put("error", "Order " + orderId
                + " not found")), ORDER_NOT_FOUND);
    }

    /** The order id of the socket's path ({@code null} when the path does not name one). */
    static String orderId(URI uri) {
        PathPattern.PathMatchInfo match = PATTERN.matchAndExtract(PathContainer.parsePath(uri.getRawPath()));
        return match == null ? null : match.getUriVariables().get("id");
    }
}
