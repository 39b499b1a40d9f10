package io.orderflow.gateway.caller;

import io.orderflow.schemas.commands.Caller;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Extension point: who is calling. The authentication issue replaces the open-deployment implementation with one
 * that reads API tokens, the shared password and sessions (and answers 401/429 itself).
 */
public interface CallerResolver {

    Mono<Caller> resolve(ServerWebExchange exchange);
}
