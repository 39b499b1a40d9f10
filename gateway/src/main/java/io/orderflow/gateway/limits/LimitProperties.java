package io.orderflow.gateway.limits;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Per-caller limits on what costs the gateway and the services behind it work or money
 * ({@code orderflow.limits.*}; docs/security.md lists them with their reasons). A value of 0 or less takes the
 * default.
 *
 * @param readsPerMinute         {@code READ_RATE_LIMIT}: API reads ({@code GET /api/v1/...}) per caller per minute;
 *                               a caller may use thirty seconds' worth at once
 * @param chatsPerMinute         {@code CHAT_RATE_LIMIT}: ops chat messages per caller per minute, over all orders
 * @param chatsPerOrderPerMinute {@code CHAT_ORDER_RATE_LIMIT}: ops chat messages per order per minute, over all callers
 * @param socketsPerCaller       {@code SOCKETS_PER_CALLER}: order sockets one caller holds open at once on one gateway
 * @param modelThreads           {@code CHAT_MODEL_THREADS}: chat turns (model calls, the heuristic) run at once on
 *                               one gateway; more wait in a queue of {@value #QUEUE_PER_THREAD} per thread, and
 *                               beyond it the chat answers that it is busy
 * @param passwordThreads        {@code PASSWORD_HASH_THREADS}: password hashes (sign-in, adding a person, a reset)
 *                               computed at once on one gateway, apart from the chat's threads
 */
@ConfigurationProperties("orderflow.limits")
public record LimitProperties(int readsPerMinute, int chatsPerMinute, int chatsPerOrderPerMinute, int socketsPerCaller,
                              int modelThreads, int passwordThreads) {

    static final int QUEUE_PER_THREAD = 25;

    public LimitProperties {
        readsPerMinute = readsPerMinute > 0 ? readsPerMinute : 3000;
        chatsPerMinute = chatsPerMinute > 0 ? chatsPerMinute : 20;
        chatsPerOrderPerMinute = chatsPerOrderPerMinute > 0 ? chatsPerOrderPerMinute : 30;
        socketsPerCaller = socketsPerCaller > 0 ? socketsPerCaller : 20;
        modelThreads = modelThreads > 0 ? modelThreads : 4;
        passwordThreads = passwordThreads > 0 ? passwordThreads : 2;
    }
}
