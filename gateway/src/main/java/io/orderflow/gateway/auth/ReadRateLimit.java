package io.orderflow.gateway.auth;

import io.orderflow.gateway.api.ApiException;
import io.orderflow.gateway.limits.ChatLimits;
import io.orderflow.gateway.limits.LimitProperties;
import io.orderflow.kafka.limits.RateLimiter;
import java.security.Principal;
import java.time.Clock;
import java.util.OptionalLong;
import org.springframework.http.HttpMethod;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * {@code READ_RATE_LIMIT}: the API reads ({@code GET /api/v1/...}) one caller makes, per minute, with thirty seconds'
 * worth allowed at once; beyond that 429 with {@code Retry-After}. A list or search costs the processors work that
 * grows with the orders kept, so a caller repeating it in a loop would make every instance scan for nobody's benefit.
 * The default is far above what the dashboard asks (a page refreshes every few seconds).
 *
 * <p>A caller is a token, a person or the shared password's session by identity; the open deployment's anonymous
 * operator and the shared password bearer, which have no identity, by client address. The OpenAPI document and the
 * order socket's upgrade (a long-lived connection, limited by {@code SOCKETS_PER_CALLER}) do not count. Runs after the
 * security chain, which has named the caller; a request it refused never gets here.
 */
@Component
public class ReadRateLimit implements WebFilter {

    static final String TOO_MANY = "Too many reads; retry after the time in Retry-After";

    private final RateLimiter limiter;
    private final ClientAddress clientAddress;

    public ReadRateLimit(LimitProperties limits, Clock clock, ClientAddress clientAddress) {
        this.limiter = new RateLimiter(clock, limits.readsPerMinute(), Math.max(1, limits.readsPerMinute() / 2));
        this.clientAddress = clientAddress;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        var request = exchange.getRequest();
        String path = request.getPath().pathWithinApplication().value();
        if (request.getMethod() != HttpMethod.GET || !path.startsWith("/api/v1/") || path.equals("/api/v1/openapi.json")
                || path.endsWith("/socket")) {
            return chain.filter(exchange);
        }
        return exchange.getPrincipal()
                .map(principal -> key(principal, exchange))
                .defaultIfEmpty("address:" + clientAddress.of(request))
                .flatMap(key -> {
                    OptionalLong retryAfter = limiter.take(key);
                    return retryAfter.isPresent()
                            ? Mono.error(ApiException.tooManyRequests(TOO_MANY, retryAfter.getAsLong()))
                            : chain.filter(exchange);
                });
    }

    private String key(Principal principal, ServerWebExchange exchange) {
        return principal instanceof CallerAuthentication caller
                ? ChatLimits.callerKey(caller.caller(), clientAddress.of(exchange.getRequest()))
                : "address:" + clientAddress.of(exchange.getRequest());
    }
}
