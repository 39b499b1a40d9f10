package io.orderflow.gateway.socket;

import java.net.URI;
import java.util.List;
import java.util.Locale;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * Cross-site WebSocket hijacking guard on the socket's upgrade: a browser always sends {@code Origin}, so an upgrade
 * whose {@code Origin} is present and names neither the request's own host nor an allowed origin is refused. No
 * {@code Origin} (a non-browser client) passes: such a client carries its own credentials, no ambient cookie.
 */
final class OriginCheck {

    private final List<String> allowed;

    OriginCheck(SocketProperties settings) {
        this.allowed = settings.allowedOrigins().stream().map(OriginCheck::normalized).toList();
    }

    boolean allows(ServerHttpRequest request) {
        String origin = request.getHeaders().getFirst(HttpHeaders.ORIGIN);
        if (origin == null) {
            return true;
        }
        if (allowed.contains("*") || allowed.contains(normalized(origin))) {
            return true;
        }
        URI from;
        try {
            from = URI.create(origin.trim());
        } catch (IllegalArgumentException e) {
            return false;
        }
        if (from.getHost() == null || from.getScheme() == null) {
            return false; // "null" (a sandboxed page or file) and other opaque origins
        }
        String host = request.getHeaders().getFirst(HttpHeaders.HOST);
        URI own = request.getURI();
        String scheme = own.getScheme() == null ? "http" : own.getScheme();
        URI self;
        try {
            self = URI.create(scheme + "://" + (host != null ? host : own.getRawAuthority()));
        } catch (IllegalArgumentException e) {
            return false;
        }
        return from.getHost().equalsIgnoreCase(String.valueOf(self.getHost()))
                && port(from) == port(self);
    }

    private static int port(URI uri) {
        if (uri.getPort() != -1) {
            return uri.getPort();
        }
        return switch (uri.getScheme().toLowerCase(Locale.ROOT)) {
            case "https", "wss" -> 443;
            default -> 80;
        };
    }

    private static String normalized(String origin) {
        String trimmed = origin.trim().toLowerCase(Locale.ROOT);
        return trimmed.endsWith("/") ? trimmed.substring(0, trimmed.length() - 1) : trimmed;
    }
}
