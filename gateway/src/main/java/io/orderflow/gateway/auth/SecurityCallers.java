package io.orderflow.gateway.auth;

import io.orderflow.gateway.api.ApiException;
import io.orderflow.gateway.caller.CallerResolver;
import io.orderflow.schemas.commands.Caller;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/** The caller the security chain authenticated; 401 where it authenticated nobody. */
@Component
class SecurityCallers implements CallerResolver {

    @Override
    public Mono<Caller> resolve(ServerWebExchange exchange) {
        return exchange.getPrincipal().ofType(CallerAuthentication.class).map(CallerAuthentication::caller)
                .switchIfEmpty(Mono.error(() -> ApiException.unauthorized(PrincipalAuthenticator.SIGN_IN_NEEDED)));
    }
}
