package io.orderflow.gateway.chat;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the ops chat's model ({@code orderflow.chat.*}, from the {@code AI_*} environment variables).
 *
 * @param mode       {@code AI_MODE}: {@code live} (default) calls the model; {@code mock} uses the keyword heuristic only
 * @param baseUrl    {@code AI_BASE_URL}: an OpenAI-compatible API base (default {@code https://api.openai.com/v1}); the
 *                   client calls {@code <baseUrl>/chat/completions}
 * @param model      {@code AI_MODEL}: the model name sent with every call (default {@code gpt-4o-mini})
 * @param apiKey     {@code AI_API_KEY} (or {@code OPENAI_API_KEY}): secret, never logged; without one live mode falls
 *                   back to the heuristic and says so once in the log
 * @param timeout    {@code AI_TIMEOUT}: the whole time one model call may take (default 20 s); past it the heuristic
 *                   answers
 * @param gatewayId  {@code AI_GATEWAY_ID}: when set, calls go to {@code <gatewayUrl>/<gatewayId>/openai} instead of
 *                   {@code baseUrl}
 * @param gatewayUrl {@code AI_GATEWAY_URL}: the AI gateway's base (default {@code https://gateway.ai.cloudflare.com/v1},
 *                   where the id is {@code <account-id>/<gateway-name>})
 */
@ConfigurationProperties("orderflow.chat")
public record ChatProperties(String mode, String baseUrl, String model, String apiKey, Duration timeout,
                             String gatewayId, String gatewayUrl) {

    public static final String LIVE = "live";
    public static final String MOCK = "mock";

    public ChatProperties {
        mode = blank(mode) ? LIVE : mode.trim().toLowerCase(java.util.Locale.ROOT);
        baseUrl = blank(baseUrl) ? "https://api.openai.com/v1" : baseUrl.trim();
        model = blank(model) ? "gpt-4o-mini" : model.trim();
        apiKey = blank(apiKey) ? null : apiKey.trim();
        timeout = timeout == null ? Duration.ofSeconds(20) : timeout;
        gatewayId = blank(gatewayId) ? null : gatewayId.trim();
        gatewayUrl = blank(gatewayUrl) ? "https://gateway.ai.cloudflare.com/v1" : gatewayUrl.trim();
    }

    public boolean mock() {
        return MOCK.equals(mode);
    }

    /** Where chat completions are sent: through the AI gateway when an id is set, else to the base URL. */
    public String endpoint() {
        return gatewayId == null ? baseUrl : strip(gatewayUrl) + "/" + gatewayId + "/openai";
    }

    private static String strip(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    private static boolean blank(String value) {
        return value == null || value.isBlank();
    }

    /** Never prints the key. */
    @Override
    public String toString() {
        return "ChatProperties[mode=" + mode + ", endpoint=" + endpoint() + ", model=" + model + ", apiKey="
                + (apiKey == null ? "unset" : "set") + ", timeout=" + timeout + "]";
    }
}
