package io.orderflow.gateway.socket;

import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the order socket ({@code orderflow.socket.*}).
 *
 * @param allowedOrigins {@code ALLOWED_ORIGINS}: comma-separated origins ({@code https://ops.example.com}) a browser
 *                       may open the socket from besides the gateway's own host; {@code *} allows any. Empty: only the
 *                       gateway's own host.
 */
@ConfigurationProperties("orderflow.socket")
public record SocketProperties(List<String> allowedOrigins) {

    public SocketProperties {
        allowedOrigins = allowedOrigins == null ? List.of()
                : allowedOrigins.stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
    }
}
