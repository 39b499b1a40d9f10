package io.orderflow.gateway.socket;

import io.orderflow.gateway.api.ApiException;
import io.orderflow.gateway.auth.CallerAuthentication;
import io.orderflow.gateway.auth.AllowedOrigins;
import io.orderflow.gateway.auth.OriginCheck;
import java.util.Map;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.config.WebFluxConfigurer;
import org.springframework.web.reactive.handler.SimpleUrlHandlerMapping;
import org.springframework.web.reactive.socket.WebSocketHandler;
import org.springframework.web.reactive.socket.server.WebSocketService;
import org.springframework.web.reactive.socket.server.support.HandshakeWebSocketService;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Serves the order socket and the list socket ({@link OrderListSocketHandler}): their routes, and the upgrade. The security chain has authenticated the upgrade request by
 * the route rule ({@code GET /api/v1/orders/{id}/socket} needs a viewer); the upgrade then pins that principal to the
 * socket, so the socket's handler sees the caller without the request's security context.
 */
@Configuration
class OrderSocketConfig implements WebFluxConfigurer {

    private final OriginCheck origins;

    OrderSocketConfig(AllowedOrigins settings) {
        this.origins = new OriginCheck(settings.allowedOrigins());
    }

    @Bean
    HandlerMapping orderSocketMapping(OrderSocketHandler handler, OrderListSocketHandler lists) {
        // ahead of the annotated controllers, though none of their routes ends in /socket
        return new SimpleUrlHandlerMapping(Map.<String, WebSocketHandler>of(OrderSocketHandler.PATH, handler,
                OrderListSocketHandler.PATH, lists), Ordered.HIGHEST_PRECEDENCE);
    }

    /** Used by the WebSocketHandlerAdapter that Spring's WebFlux configuration declares. */
    @Override
    public WebSocketService getWebSocketService() {
        return new PrincipalPinningWebSocketService(origins);
    }

    /**
     * Resolves the upgrade request's principal while the security context is still at hand and hands the socket an
     * exchange that carries it as a value. An upgrade with no authenticated caller is refused with 401 (the security
     * chain refuses it first; this is the socket's own guard). A browser upgrade from a foreign {@code Origin} is
     * refused with 403 before anything else (cross-site WebSocket hijacking: a browser always sends {@code Origin} on
     * an upgrade). No {@code Origin}, a non-browser client, passes: it carries its own credentials, no ambient cookie.
     */
    static final class PrincipalPinningWebSocketService extends HandshakeWebSocketService {

        private final OriginCheck origins;

        PrincipalPinningWebSocketService(OriginCheck origins) {
            this.origins = origins;
        }

        @Override
        public Mono<Void> handleRequest(ServerWebExchange exchange, WebSocketHandler handler) {
            String origin = exchange.getRequest().getHeaders().getFirst(HttpHeaders.ORIGIN);
            if (origin != null && !origins.allows(origin, exchange.getRequest())) {
                return Mono.error(ApiException.forbidden("The order socket cannot be opened from origin "
                        + exchange.getRequest().getHeaders().getOrigin()));
            }
            return exchange.getPrincipal().ofType(CallerAuthentication.class)
                    .switchIfEmpty(Mono.error(() -> ApiException.unauthorized("Sign in to open the order socket")))
                    .flatMap(caller -> super.handleRequest(exchange.mutate().principal(Mono.just(caller)).build(),
                            handler));
        }
    }
}
