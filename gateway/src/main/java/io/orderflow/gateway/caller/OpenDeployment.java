package io.orderflow.gateway.caller;

import io.orderflow.schemas.commands.Caller;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/** An open deployment (no shared password, nobody registered): every caller is {@link Caller#OPEN}. */
@Component
class OpenDeployment implements CallerResolver {

    @Override
    public Mono<Caller> resolve(ServerWebExchange exchange) {
        return Mono.just(Caller.OPEN);
    }
}
