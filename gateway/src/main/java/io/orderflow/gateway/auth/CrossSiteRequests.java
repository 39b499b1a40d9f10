package io.orderflow.gateway.auth;

import io.orderflow.gateway.api.ApiException;
import java.util.Set;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpCookie;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Cross-site request forgery guard of every request to a route of {@link RouteRules} that changes state
 * ({@code POST}, {@code PUT}, {@code PATCH}, {@code DELETE}), ahead of authentication. {@code SameSite=Lax} keeps
 * the session cookie off requests from other sites, but not off those from a sibling origin of the same site
 * ({@code https://blog.example.com} posting to {@code https://ops.example.com}), so:
 *
 * <ol>
 *   <li>Without an {@code Authorization: Bearer} header (a cross-origin page cannot add one without a CORS
 *   preflight, which the gateway does not grant), the browser's {@code Origin} must be the gateway's own origin or
 *   in {@code ALLOWED_ORIGINS} ({@link OriginCheck}); without {@code Origin}, {@code Sec-Fetch-Site} must be
 *   {@code same-origin}; with neither, the request must not carry the session cookie (a non-browser client without
 *   ambient credentials). Otherwise 403.</li>
 *   <li>A body sent to such a route must be declared {@code application/json} (any parameters, such as a charset):
 *   another content type, or a body with none, is 415. A form can post {@code text/plain} that reads as JSON;
 *   it cannot post {@code application/json} without a preflight.</li>
 * </ol>
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 10) // inside RequestBodyDrain, ahead of the security chain
public class CrossSiteRequests implements WebFilter {

    private static final Set<HttpMethod> CHANGING = Set.of(HttpMethod.POST, HttpMethod.PUT, HttpMethod.PATCH,
            HttpMethod.DELETE);
    static final String SEC_FETCH_SITE = "Sec-Fetch-Site";

    private final OriginCheck origins;

    public CrossSiteRequests(AllowedOrigins settings) {
        this.origins = new OriginCheck(settings.allowedOrigins());
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        // a route of the table only: an unknown route stays 404, a method it does not have 405
        if (!CHANGING.contains(request.getMethod()) || RouteRules.of(request).isEmpty()) {
            return chain.filter(exchange);
        }
        if (!bearer(request) && !fromOwnOrigin(request)) {
            return Mono.error(ApiException.forbidden(refusal(request)));
        }
        if (!json(request)) {
            return Mono.error(ApiException.unsupportedMediaType());
        }
        return chain.filter(exchange);
    }

    private static boolean bearer(ServerHttpRequest request) {
        String authorization = request.getHeaders().getFirst(HttpHeaders.AUTHORIZATION);
        return authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7);
    }

    private boolean fromOwnOrigin(ServerHttpRequest request) {
        String origin = request.getHeaders().getFirst(HttpHeaders.ORIGIN);
        if (origin != null) {
            return origins.allows(origin, request);
        }
        String site = request.getHeaders().getFirst(SEC_FETCH_SITE);
        if (site != null) {
            return "same-origin".equalsIgnoreCase(site.strip());
        }
        HttpCookie session = request.getCookies().getFirst(SessionCookies.NAME);
        return session == null || session.getValue().isEmpty();
    }

    private static String refusal(ServerHttpRequest request) {
        String origin = request.getHeaders().getFirst(HttpHeaders.ORIGIN);
        return origin != null
                ? "Cross-site request refused: origin " + origin + " is neither this service's nor in ALLOWED_ORIGINS"
                : "Cross-site request refused: a signed-in browser must send its Origin; an API client sends a "
                        + "bearer token";
    }

    /** Declared {@code application/json}; or no body and no content type (a POST that needs no body). */
    private static boolean json(ServerHttpRequest request) {
        HttpHeaders headers = request.getHeaders();
        MediaType type;
        try {
            type = headers.getContentType();
        } catch (InvalidMediaTypeException e) {
            return false;
        }
        if (type == null) {
            return headers.getContentLength() <= 0 && headers.getFirst(HttpHeaders.TRANSFER_ENCODING) == null;
        }
        return MediaType.APPLICATION_JSON.equalsTypeAndSubtype(type);
    }
}
