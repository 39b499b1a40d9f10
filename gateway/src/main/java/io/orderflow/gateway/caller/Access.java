package io.orderflow.gateway.caller;

import io.orderflow.gateway.api.ApiException;
import io.orderflow.schemas.commands.Caller;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/** The one place a route asks for its caller and the role it needs. */
@Component
public class Access {

    private final CallerResolver resolver;

    public Access(CallerResolver resolver) {
        this.resolver = resolver;
    }

    /**
     * The caller, or 403 when their role is below {@code needed}. The security chain has already refused such a
     * caller by the route table; this keeps a route honest if it is ever served outside that table.
     */
    public Mono<Caller> require(ServerWebExchange exchange, Role needed) {
        return resolver.resolve(exchange).flatMap(caller -> Role.of(caller.role()).covers(needed)
                ? Mono.just(caller)
                : Mono.error(ApiException.forbidden(needed.needed())));
    }
}
