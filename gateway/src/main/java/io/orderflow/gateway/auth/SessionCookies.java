package io.orderflow.gateway.auth;

import java.time.Duration;
import org.springframework.http.ResponseCookie;
import org.springframework.web.server.ServerWebExchange;

/** The dashboard session cookie: HttpOnly, SameSite=Lax, Secure when the page is served over https. */
public final class SessionCookies {

    public static final String NAME = "owf_session";

    private SessionCookies() {
    }

    static ResponseCookie issue(ServerWebExchange exchange, String value, Duration ttl) {
        return cookie(exchange, value, ttl);
    }

    static ResponseCookie clear(ServerWebExchange exchange) {
        return cookie(exchange, "", Duration.ZERO);
    }

    private static ResponseCookie cookie(ServerWebExchange exchange, String value, Duration ttl) {
        return ResponseCookie.from(NAME, value).httpOnly(true).sameSite("Lax").path("/").maxAge(ttl)
                .secure("https".equalsIgnoreCase(exchange.getRequest().getURI().getScheme())).build();
    }
}
