package io.orderflow.gateway.auth;

import java.net.URI;
import java.util.List;
import java.util.Locale;
import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * Whether a browser's {@code Origin} may act on this gateway: the gateway's own origin, or one of
 * {@code ALLOWED_ORIGINS} ({@code *} allows any). The own origin is the scheme, host and port of the request's URI,
 * which behind a trusted proxy are the forwarded ones ({@link TrustedProxies}): the origin the browser used, not the
 * proxy's hop to the gateway.
 */
public final class OriginCheck {

    private final List<String> allowed;

    public OriginCheck(List<String> allowedOrigins) {
        this.allowed = allowedOrigins.stream().map(OriginCheck::normalized).toList();
    }

    /** Whether {@code origin} (an {@code Origin} header's value) is this gateway's or an allowed one. */
    public boolean allows(String origin, ServerHttpRequest request) {
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
        URI self = request.getURI();
        String scheme = self.getScheme() == null ? "http" : self.getScheme();
        return from.getScheme().equalsIgnoreCase(scheme)
                && from.getHost().equalsIgnoreCase(String.valueOf(self.getHost()))
                && port(from.getScheme(), from.getPort()) == port(scheme, self.getPort());
    }

    private static int port(String scheme, int port) {
        if (port != -1) {
            return port;
        }
        return switch (scheme.toLowerCase(Locale.ROOT)) {
            case "https", "wss" -> 443;
            default -> 80;
        };
    }

    private static String normalized(String origin) {
        String trimmed = origin.trim().toLowerCase(Locale.ROOT);
        return trimmed.endsWith("/") ? trimmed.substring(0, trimmed.length() - 1) : trimmed;
    }
}
