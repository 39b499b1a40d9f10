package io.orderflow.gateway.socket;

import io.orderflow.gateway.limits.ChatLimits;
import java.util.concurrent.RejectedExecutionException;
import io.orderflow.gateway.api.ApiException;
import io.orderflow.gateway.auth.CallerAuthentication;
import io.orderflow.gateway.auth.PrincipalAuthenticator.SessionEnded;
import io.orderflow.gateway.auth.Sessions;
import io.orderflow.gateway.caller.Access;
import io.orderflow.gateway.chat.OpsChat;
import io.orderflow.gateway.commands.CommandBus;
import io.orderflow.gateway.orders.OrderIds;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.json.Json;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The order socket's JSON-RPC dispatch: a frame {@code { id, method, params }} becomes one answer, {@code { id,
 * result }} or {@code { id, error }}. The caller is the principal the security chain authenticated on the upgrade,
 * never anything the browser puts in a message, and every call re-reads a cookie caller's session (rule 6 of
 * Authentication): a lower role applies at once, and an ended session or a disabled person ends the socket with
 * {@link OrderSocketHandler#SIGN_IN_ENDED}.
 */
@Component
class SocketCalls {

    /** Fields a browser might send to claim a principal: the caller comes from the upgrade only. */
    private static final List<String> PRINCIPAL_FIELDS = List.of("principal", "caller");
    private static final Logger log = LoggerFactory.getLogger(SocketCalls.class);

    private final Sessions sessions;
    private final CommandBus commands;
    private final SocketParams params;
    private final SocketProposals proposals;
    private final OpsChat chat;
    private final ChatLimits limits;

    SocketCalls(Sessions sessions, CommandBus commands, SocketParams params, SocketProposals proposals,
                OpsChat chat, ChatLimits limits) {
        this.sessions = sessions;
        this.commands = commands;
        this.params = params;
        this.proposals = proposals;
        this.chat = chat;
        this.limits = limits;
    }

    /**
     * One call, answered with its result or its error; an ended sign-in also ends the socket.
     *
     * @param callerKey whom the socket's chat messages count against ({@link ChatLimits#callerKey})
     */
    Mono<SocketOut> call(String text, String orderId, CallerAuthentication upgrade, String callerKey) {
        JsonNode request;
        try {
            request = Json.MAPPER.readTree(text);
        } catch (JacksonException e) {
            return Mono.just(SocketOut.error(NullNode.getInstance(), "A call is JSON: { id, method, params }"));
        }
        if (request == null || !request.isObject()) {
            return Mono.just(SocketOut.error(NullNode.getInstance(), "A call is an object: { id, method, params }"));
        }
        JsonNode id = request.has("id") ? request.get("id") : NullNode.getInstance();
        Optional<Caller> current = current(upgrade);
        if (current.isEmpty()) {
            return Mono.just(SocketOut.errorAndClose(id, SessionEnded.MESSAGE, OrderSocketHandler.SIGN_IN_ENDED));
        }
        Caller caller = current.get();
        JsonNode name = request.get("method");
        Optional<SocketMethod> method = name != null && name.isString() ? SocketMethod.of(name.asString())
                : Optional.empty();
        if (method.isEmpty()) {
            return Mono.just(SocketOut.error(id, "Unknown method " + (name == null ? "(none)" : name.toString())
                    + ": use decide, deliver, cancel or chat"));
        }
        if (!Access.mayCall(caller, method.get().needs)) {
            return Mono.just(SocketOut.error(id, method.get().needs.needed()));
        }
        JsonNode given = request.get("params");
        if (given != null && !given.isNull() && !given.isObject()) {
            return Mono.just(SocketOut.error(id, "params must be an object"));
        }
        ObjectNode args = given == null || given.isNull() ? Json.object() : ((ObjectNode) given).deepCopy();
        PRINCIPAL_FIELDS.forEach(args::remove);
        if (method.get() == SocketMethod.CHAT) {
            return chat(id, orderId, args, caller, callerKey);
        }
        JsonNode proposalId = args.remove(SocketProposals.PROPOSAL_ID);
        if (proposalId != null && !proposalId.isNull() && method.get() != SocketMethod.DELIVER) {
            if (!proposalId.isString() || proposalId.asString().isBlank()) {
                return Mono.just(SocketOut.error(id, "params.proposalId must be the id of a chat proposal"));
            }
            return proposals.confirm(id, method.get(), orderId, args, caller, proposalId.asString());
        }
        return Mono.fromCallable(() -> params.command(method.get(), orderId, args, caller))
                .flatMap(command -> commands.send(command, caller))
                .map(reply -> SocketOut.answer(id, reply))
                .onErrorResume(ApiException.class, e -> Mono.just(SocketOut.error(id, e)));
    }

    static final String BUSY = "The chat is busy; try again in a moment";

    /** Whether a frame calls {@code chat} (a frame that is not a JSON object is not). */
    static boolean isChat(String text) {
        try {
            JsonNode request = Json.MAPPER.readTree(text);
            return request != null && request.isObject() && "chat".equals(request.path("method").asString(""));
        } catch (JacksonException e) {
            return false;
        }
    }

    /** {@code chat(text)}: the ops chat's loop; the result is {@code { ok: true, reply }} once it has finished. */
    private Mono<SocketOut> chat(JsonNode id, String orderId, ObjectNode args, Caller caller, String callerKey) {
        JsonNode text = args.get("text");
        if (text == null || !text.isString() || text.asString().isBlank()) {
            return Mono.just(SocketOut.error(id, "params.text is required: the chat message"));
        }
        if (!OrderIds.isOrderId(orderId)) {
            return Mono.just(SocketOut.error(id, "Order " + orderId + " not found"));
        }
        Optional<String> refused = limits.chat(callerKey, orderId);
        if (refused.isPresent()) {
            return Mono.just(SocketOut.error(id, refused.get()));
        }
        return chat.chat(orderId, text.asString(), caller)
                .map(reply -> SocketOut.result(id, Json.object().put("ok", true).put("reply", reply)))
                .onErrorResume(ApiException.class, e -> Mono.just(SocketOut.error(id, e)))
                .onErrorResume(e -> e instanceof RejectedExecutionException
                        || e.getCause() instanceof RejectedExecutionException,
                        e -> Mono.just(SocketOut.error(id, BUSY)))
                .onErrorResume(e -> {
                    log.warn("The ops chat on {} failed", orderId, e);
                    return Mono.just(SocketOut.error(id, "The chat failed; try again"));
                });
    }

    /**
     * Who calls now: a cookie caller as their session stands at this moment (their current role, or nobody once the
     * session ended or the person was disabled); a token, the shared password bearer or open use as on the upgrade.
     */
    private Optional<Caller> current(CallerAuthentication upgrade) {
        return upgrade.sessionDigest() == null ? Optional.of(upgrade.caller())
                : sessions.caller(upgrade.sessionDigest());
    }
}
