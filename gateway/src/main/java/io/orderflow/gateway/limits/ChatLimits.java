package io.orderflow.gateway.limits;

import io.orderflow.kafka.limits.RateLimiter;
import io.orderflow.schemas.commands.Caller;
import java.time.Clock;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/**
 * What one caller may spend on the ops chat on one gateway: {@code CHAT_RATE_LIMIT} messages a minute per caller
 * over all orders, {@code CHAT_ORDER_RATE_LIMIT} a minute per order over all callers (each message runs up to four
 * model turns, which cost money), and {@code SOCKETS_PER_CALLER} order sockets open at once. A caller is counted by
 * identity (a token, a person), or by address when it has none (the shared password, open use).
 */
@Component
public class ChatLimits {

    public static final String TOO_MANY_CHATS = "Too many chat messages from you; wait %d s";
    public static final String TOO_MANY_ON_ORDER = "Too many chat messages on this order; wait %d s";
    public static final String TOO_MANY_SOCKETS = "Too many order pages open; close some and reload";

    private final RateLimiter perCaller;
    private final RateLimiter perOrder;
    private final int socketsPerCaller;
    private final ConcurrentHashMap<String, Integer> sockets = new ConcurrentHashMap<>();

    public ChatLimits(LimitProperties limits, Clock clock) {
        this.perCaller = new RateLimiter(clock, limits.chatsPerMinute(), limits.chatsPerMinute());
        this.perOrder = new RateLimiter(clock, limits.chatsPerOrderPerMinute(), limits.chatsPerOrderPerMinute());
        this.socketsPerCaller = limits.socketsPerCaller();
    }

    /** The key a caller is counted under: its identity, or its address when it has none. */
    public static String callerKey(Caller caller, String clientAddress) {
        return caller.identity() != null ? caller.kind() + ":" + caller.identity() : "address:" + clientAddress;
    }

    /** Takes one chat message of {@code caller} on {@code orderId}; the refusal's words when over a limit. */
    public Optional<String> chat(String caller, String orderId) {
        OptionalLong wait = perCaller.take(caller);
        if (wait.isPresent()) {
            return Optional.of(TOO_MANY_CHATS.formatted(wait.getAsLong()));
        }
        wait = perOrder.take(orderId);
        return wait.isPresent() ? Optional.of(TOO_MANY_ON_ORDER.formatted(wait.getAsLong())) : Optional.empty();
    }

    /** Counts an order socket of {@code caller} as open; false (and nothing counted) when it has too many. */
    public boolean openSocket(String caller) {
        boolean[] opened = {false};
        sockets.compute(caller, (key, open) -> {
            int now = open == null ? 0 : open;
            if (now >= socketsPerCaller) {
                return open;
            }
            opened[0] = true;
            return now + 1;
        });
        return opened[0];
    }

    /** Counts an order socket of {@code caller} as closed. */
    public void closeSocket(String caller) {
        sockets.computeIfPresent(caller, (key, open) -> open <= 1 ? null : open - 1);
    }
}
