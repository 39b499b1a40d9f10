package io.orderflow.gateway.caller;

import io.orderflow.schemas.commands.Caller;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/** Who is calling: the principal the security chain authenticated for this exchange. */
public interface CallerResolver {

    Mono<Caller> resolve(ServerWebExchange exchange);
}
