package io.orderflow.gateway.socket;

import static io.orderflow.gateway.validation.RequestValidator.optionalText;

import io.orderflow.gateway.api.ApiException;
import io.orderflow.gateway.auth.CallerAuthentication;
import io.orderflow.gateway.auth.PrincipalAuthenticator.SessionEnded;
import io.orderflow.gateway.auth.Sessions;
import io.orderflow.gateway.caller.Access;
import io.orderflow.gateway.caller.Role;
import io.orderflow.gateway.chat.OpsChat;
import io.orderflow.gateway.commands.CommandBus;
import io.orderflow.gateway.orders.OrderIds;
import io.orderflow.gateway.orders.ProcessorClient;
import io.orderflow.gateway.validation.RequestSchema;
import io.orderflow.gateway.validation.RequestValidator;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.ChatMessage;
import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.ResponseEntity;
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
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The order socket of the dashboard's order page ({@code GET /api/v1/orders/{id}/socket}). The server pushes
 * {@code { type: "state", state }} on connect and after every {@code order-updates} notice for the order; the client
 * calls {@code { id, method, params }} and gets {@code { id, result }} or {@code { id, error }}. Each method becomes
 * the same command the REST route sends, so the order's agent stays the only writer.
 *
 * <p>The caller is the principal the security chain authenticated on the upgrade, never anything the browser puts in
 * a message. Every call re-reads a cookie caller's session (rule 6 of Authentication): a lower role applies at once,
 * and an ended session or a disabled person ends the socket with close code 4401. Calls of one socket run one at a
 * time, in the order they arrive, except {@code chat}, which runs the ops chat's loop ({@link OpsChat}) beside them.
 * {@code decide} and {@code cancel} with a {@code proposalId} confirm a chat proposal.
 */
@Component
public class OrderSocketHandler implements WebSocketHandler {

    public static final String PATH = "/api/v1/orders/{id}/socket";
    static final String DEFAULT_CANCEL_REASON = "Cancelled by operator";
    /** The socket's close code for a sign-in that has ended (rule 6). */
    public static final CloseStatus SIGN_IN_ENDED = new CloseStatus(4401, "Sign-in ended");
    /** The socket's close code for an order that does not exist. */
    public static final CloseStatus ORDER_NOT_FOUND = new CloseStatus(4404, "Order not found");
    /** Fields a browser might send to claim a principal: the caller comes from the upgrade only. */
    private static final List<String> PRINCIPAL_FIELDS = List.of("principal", "caller");
    /** Chats of one socket that run at once; more wait their turn (a page sends one at a time anyway). */
    static final int CHATS_PER_SOCKET = 2;
    /** The chat proposal a decide or cancel confirms. */
    static final String PROPOSAL_ID = "proposalId";
    private static final PathPattern PATTERN = PathPatternParser.defaultInstance.parse(PATH);
    private static final Logger log = LoggerFactory.getLogger(OrderSocketHandler.class);

    /** The socket's methods and the role each needs (the spec's table under Order socket). */
    enum Method {
        DECIDE(Role.APPROVER), DELIVER(Role.OPERATOR), CANCEL(Role.OPERATOR), CHAT(Role.VIEWER);

        final Role needs;

        Method(Role needs) {
            this.needs = needs;
        }

        static Optional<Method> of(String name) {
            return Arrays.stream(values()).filter(m -> m.name().toLowerCase(java.util.Locale.ROOT).equals(name))
                    .findFirst();
        }
    }

    /** One message to the client, or none ({@code json} null); a close status ends the socket after it. */
    private record Out(String json, CloseStatus close) {

        static final Out CLIENT_LEFT = new Out(null, CloseStatus.NORMAL);

        static Out message(JsonNode json) {
            return new Out(Json.write(json), null);
        }

        boolean ends() {
            return close != null;
        }
    }

    private final Sessions sessions;
    private final CommandBus commands;
    private final ProcessorClient processor;
    private final OrderUpdates updates;
    private final RequestValidator validator;
    private final OpsChat chat;

    OrderSocketHandler(Sessions sessions, CommandBus commands, ProcessorClient processor, OrderUpdates updates,
                       RequestValidator validator, OpsChat chat) {
        this.chat = chat;
        this.sessions = sessions;
        this.commands = commands;
        this.processor = processor;
        this.updates = updates;
        this.validator = validator;
    }

    @Override
    public Mono<Void> handle(WebSocketSession session) {
        String orderId = orderId(session.getHandshakeInfo().getUri());
        return session.getHandshakeInfo().getPrincipal().ofType(CallerAuthentication.class)
                .map(Optional::of).defaultIfEmpty(Optional.empty())
                // the upgrade already refused a request without a principal; this keeps the socket honest without it
                .flatMap(upgrade -> upgrade.isPresent() ? serve(session, orderId, upgrade.get())
                        : session.close(SIGN_IN_ENDED));
    }

    private Mono<Void> serve(WebSocketSession session, String orderId, CallerAuthentication upgrade) {
        // Subscribe to the notices first, then read the state: a change between the two is pushed, never lost.
        // A burst of notices while a read runs collapses into one more read.
        Flux<Out> states = Flux.merge(updates.of(orderId).map(update -> "changed"), Mono.just("connected"))
                .onBackpressureLatest()
                .concatMap(trigger -> state(orderId), 1);
        // Ending the output must not cancel the inbound: Reactor Netty answers an inbound cancel with a close frame
        // without a status, ahead of ours (4401, 4404). Detached, the inbound lives until the client closes.
        Flux<String> frames = session.receive().map(WebSocketMessage::getPayloadAsText).publish().autoConnect();
        // Calls run one at a time in arrival order, except chat: a chat runs model turns for seconds, so it runs
        // beside the other calls (a decide during a chat is not held up) and answers when its loop has finished.
        Flux<Out> replies = frames
                .publish(shared -> Flux.merge(
                        shared.filter(text -> !isChat(text)).concatMap(text -> call(text, orderId, upgrade)),
                        shared.filter(OrderSocketHandler::isChat)
                                .flatMap(text -> call(text, orderId, upgrade), CHATS_PER_SOCKET)))
                .concatWith(Mono.just(Out.CLIENT_LEFT));
        AtomicReference<CloseStatus> closeWith = new AtomicReference<>(CloseStatus.NORMAL);
        Flux<WebSocketMessage> out = Flux.merge(states, replies)
                .takeUntil(Out::ends)
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

    // ---- pushes ---------------------------------------------------------------------------------------------------

    /** The order's live state as {@code GET /api/v1/orders/{id}} answers it; an unknown order ends the socket. */
    private Mono<Out> state(String orderId) {
        if (!OrderIds.isOrderId(orderId)) {
            return Mono.just(notFound(orderId));
        }
        return processor.order(orderId)
                .map(response -> statePush(orderId, response))
                .onErrorResume(e -> {
                    // the next notice reads again; a failed read does not end the socket
                    log.warn("Could not read the state of {} for its sockets: {}", orderId, e.getMessage());
                    String message = e instanceof ApiException api ? api.getMessage()
                            : "The order's state could not be read; it is pushed again on the next change";
                    return Mono.just(Out.message(Json.object().put("type", "error").put("error", message)));
                });
    }

    private static Out statePush(String orderId, ResponseEntity<byte[]> response) {
        if (response.getStatusCode().value() == 404) {
            return notFound(orderId);
        }
        JsonNode body = response.getBody() == null ? Json.object() : Json.MAPPER.readTree(response.getBody());
        if (!response.getStatusCode().is2xxSuccessful()) {
            return Out.message(Json.object().put("type", "error").put("error", errorOf(body)));
        }
        ObjectNode push = Json.object().put("type", "state");
        push.set("state", body);
        return Out.message(push);
    }

    private static Out notFound(String orderId) {
        return new Out(Json.write(Json.object().put("type", "error").put("error", "Order " + orderId + " not found")),
                ORDER_NOT_FOUND);
    }

    // ---- calls ----------------------------------------------------------------------------------------------------

    /** One call, answered with its result or its error; an ended sign-in also ends the socket. */
    private Mono<Out> call(String text, String orderId, CallerAuthentication upgrade) {
        JsonNode request;
        try {
            request = Json.MAPPER.readTree(text);
        } catch (JacksonException e) {
            return Mono.just(error(NullNode.getInstance(), "A call is JSON: { id, method, params }"));
        }
        if (request == null || !request.isObject()) {
            return Mono.just(error(NullNode.getInstance(), "A call is an object: { id, method, params }"));
        }
        JsonNode id = request.has("id") ? request.get("id") : NullNode.getInstance();
        Optional<Caller> current = current(upgrade);
        if (current.isEmpty()) {
            return Mono.just(new Out(Json.write(errorBody(id, SessionEnded.MESSAGE)), SIGN_IN_ENDED));
        }
        Caller caller = current.get();
        JsonNode name = request.get("method");
        Optional<Method> method = name != null && name.isString() ? Method.of(name.asString()) : Optional.empty();
        if (method.isEmpty()) {
            return Mono.just(error(id, "Unknown method " + (name == null ? "(none)" : name.toString())
                    + ": use decide, deliver, cancel or chat"));
        }
        if (!Role.of(caller.role()).covers(method.get().needs)) {
            return Mono.just(error(id, method.get().needs.needed()));
        }
        JsonNode params = request.get("params");
        if (params != null && !params.isNull() && !params.isObject()) {
            return Mono.just(error(id, "params must be an object"));
        }
        ObjectNode args = params == null || params.isNull() ? Json.object() : ((ObjectNode) params).deepCopy();
        PRINCIPAL_FIELDS.forEach(args::remove);
        if (method.get() == Method.CHAT) {
            return chat(id, orderId, args, caller);
        }
        JsonNode proposalId = args.remove(PROPOSAL_ID);
        if (proposalId != null && !proposalId.isNull() && method.get() != Method.DELIVER) {
            if (!proposalId.isString() || proposalId.asString().isBlank()) {
                return Mono.just(error(id, "params.proposalId must be the id of a chat proposal"));
            }
            return confirmProposal(id, method.get(), orderId, args, caller, proposalId.asString());
        }
        return Mono.fromCallable(() -> command(method.get(), orderId, args, caller))
                .flatMap(command -> commands.send(command, caller))
                .map(reply -> answer(id, reply))
                .onErrorResume(ApiException.class, e -> Mono.just(error(id, e)));
    }

    /** {@code chat(text)}: the ops chat's loop; the result is {@code { ok: true, reply }} once it has finished. */
    private Mono<Out> chat(JsonNode id, String orderId, ObjectNode params, Caller caller) {
        JsonNode text = params.get("text");
        if (text == null || !text.isString() || text.asString().isBlank()) {
            return Mono.just(error(id, "params.text is required: the chat message"));
        }
        if (!OrderIds.isOrderId(orderId)) {
            return Mono.just(error(id, "Order " + orderId + " not found"));
        }
        return chat.chat(orderId, text.asString(), caller)
                .map(reply -> {
                    ObjectNode result = Json.object();
                    result.set("id", id);
                    result.putObject("result").put("ok", true).put("reply", reply);
                    return Out.message(result);
                })
                .onErrorResume(ApiException.class, e -> Mono.just(error(id, e)))
                .onErrorResume(e -> {
                    log.warn("The ops chat on {} failed", orderId, e);
                    return Mono.just(error(id, "The chat failed; try again"));
                });
    }

    /**
     * {@code decide} or {@code cancel} with a {@code proposalId}: the page confirms a chat proposal (after its undo
     * window). An unknown or already confirmed proposal, or one that proposes something else, is an error and
     * nothing is sent; otherwise the ordinary command is sent and, when it succeeded, the proposal is marked
     * confirmed through the agent.
     */
    private Mono<Out> confirmProposal(JsonNode id, Method method, String orderId, ObjectNode params, Caller caller,
                                      String proposalId) {
        return chat.openProposal(orderId, proposalId)
                .map(proposal -> {
                    if (method == Method.CANCEL && !params.has("reason") && proposal.reason() != null) {
                        params.put("reason", proposal.reason()); // the reason the chat proposed
                    }
                    OrderCommand command = command(method, orderId, params, caller);
                    requireMatch(proposal, command);
                    return command;
                })
                .flatMap(command -> commands.send(command, caller))
                .flatMap(reply -> !succeeded(reply) ? Mono.just(reply)
                        : chat.confirm(orderId, proposalId, caller)
                        .doOnNext(confirmed -> {
                            if (confirmed.status() >= 300) {
                                log.warn("Proposal {} of {} was carried out but not marked confirmed: {}",
                                        proposalId, orderId, confirmed.body());
                            }
                        })
                        .thenReturn(reply))
                .map(reply -> answer(id, reply))
                .onErrorResume(ApiException.class, e -> Mono.just(error(id, e)));
    }

    private static void requireMatch(ChatMessage.Proposal proposal, OrderCommand command) {
        boolean matches = switch (command) {
            case OrderCommand.DecideApproval decide -> ChatMessage.Proposal.DECIDE.equals(proposal.kind())
                    && decide.nodeId().equals(proposal.nodeId()) && decide.decision().equals(proposal.decision());
            case OrderCommand.CancelOrder cancel -> ChatMessage.Proposal.CANCEL.equals(proposal.kind());
            default -> false;
        };
        if (!matches) {
            throw ApiException.conflict("Proposal " + proposal.id() + " proposes " + describe(proposal)
                    + ", not this call.");
        }
    }

    private static String describe(ChatMessage.Proposal proposal) {
        return ChatMessage.Proposal.CANCEL.equals(proposal.kind()) ? "a cancel"
                : "to decide " + proposal.nodeId() + " as " + proposal.decision();
    }

    /** A 2xx reply that is not {@code { ok: false }} (a cancel of an order that has already ended). */
    private static boolean succeeded(CommandReply reply) {
        JsonNode ok = reply.body() == null ? null : reply.body().get("ok");
        return reply.status() >= 200 && reply.status() < 300 && (ok == null || !ok.isBoolean() || ok.asBoolean());
    }

    /** Whether a frame calls {@code chat} (a frame that is not a JSON object is not). */
    private static boolean isChat(String text) {
        try {
            JsonNode request = Json.MAPPER.readTree(text);
            return request != null && request.isObject() && "chat".equals(request.path("method").asString(""));
        } catch (JacksonException e) {
            return false;
        }
    }

    /**
     * Who calls now: a cookie caller as their session stands at this moment (their current role, or nobody once the
     * session ended or the person was disabled); a token, the shared password bearer or open use as on the upgrade.
     */
    private Optional<Caller> current(CallerAuthentication upgrade) {
        return upgrade.sessionDigest() == null ? Optional.of(upgrade.caller())
                : sessions.caller(upgrade.sessionDigest());
    }

    /** The same command the REST route sends for this call; a 400 {@link ApiException} for invalid params. */
    private OrderCommand command(Method method, String orderId, ObjectNode params, Caller caller) {
        if (!OrderIds.isOrderId(orderId)) {
            throw ApiException.notFound("Order " + orderId + " not found");
        }
        return switch (method) {
            case DECIDE -> {
                JsonNode nodeId = params.remove("nodeId");
                if (nodeId == null || !nodeId.isString() || nodeId.asString().isBlank()) {
                    throw ApiException.badRequest("params.nodeId is required: the approval node to decide");
                }
                JsonNode request = validator.validate(RequestSchema.DECIDE_APPROVAL, Json.write(params));
                yield new OrderCommand.DecideApproval(orderId, nodeId.asString(),
                        request.get("decision").asString(), Access.decider(caller, optionalText(request, "by")),
                        optionalText(request, "note"));
            }
            case DELIVER -> {
                JsonNode request = validator.validate(RequestSchema.DELIVER_EVENT, Json.write(params));
                yield new OrderCommand.DeliverEvent(orderId, request.get("event").asString(),
                        request.has("payload") ? request.get("payload") : Json.object());
            }
            case CHAT -> throw new IllegalStateException("chat runs the chat loop, not one command");
            case CANCEL -> {
                String reason = optionalText(validator.validate(RequestSchema.CANCEL_ORDER, Json.write(params)),
                        "reason");
                yield new OrderCommand.CancelOrder(orderId,
                        reason == null || reason.isBlank() ? DEFAULT_CANCEL_REASON : reason);
            }
        };
    }

    /** The agent's reply: its body as the result, or its error. */
    private static Out answer(JsonNode id, CommandReply reply) {
        JsonNode body = reply.body() == null ? Json.object() : reply.body();
        if (reply.status() >= 200 && reply.status() < 300) {
            ObjectNode result = Json.object();
            result.set("id", id);
            result.set("result", body);
            return Out.message(result);
        }
        return error(id, errorOf(body));
    }

    private static Out error(JsonNode id, String message) {
        return Out.message(errorBody(id, message));
    }

    /** An {@link ApiException} as a call's error, with the validation issues when there are any. */
    private static Out error(JsonNode id, ApiException e) {
        ObjectNode body = errorBody(id, e.body().error());
        if (e.body().issues() != null && !e.body().issues().isEmpty()) {
            ArrayNode issues = body.putArray("issues");
            e.body().issues().forEach(issue -> issues.addObject().put("path", issue.path())
                    .put("message", issue.message()));
        }
        return Out.message(body);
    }

    private static ObjectNode errorBody(JsonNode id, String message) {
        ObjectNode body = Json.object();
        body.set("id", id);
        return body.put("error", message);
    }

    private static String errorOf(JsonNode body) {
        JsonNode error = body.get("error");
        return error != null && error.isString() ? error.asString() : "The order processor refused the call";
    }


    /** The order id of the socket's path ({@code null} when the path does not name one). */
    static String orderId(URI uri) {
        PathPattern.PathMatchInfo match = PATTERN.matchAndExtract(PathContainer.parsePath(uri.getRawPath()));
        return match == null ? null : match.getUriVariables().get("id");
    }
}
