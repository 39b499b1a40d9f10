package io.orderflow.gateway.auth;

import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The origins besides the gateway's own that browsers may act from ({@code orderflow.socket.allowed-origins}): they
 * may open the order socket and send a signed-in change ({@link CrossSiteRequests}).
 *
 * @param allowedOrigins {@code ALLOWED_ORIGINS}: comma-separated origins ({@code https://ops.example.com}) a browser
 *                       may open the socket from besides the gateway's own host; {@code *} allows any. Empty: only the
 *                       gateway's own host.
 */
@ConfigurationProperties("orderflow.socket")
public record AllowedOrigins(List<String> allowedOrigins) {

    public AllowedOrigins {
        allowedOrigins = allowedOrigins == null ? List.of()
                : allowedOrigins.stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
    }
}
