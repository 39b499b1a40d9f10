package io.orderflow.gateway.caller;

import io.orderflow.schemas.commands.Caller;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Who calls, and the checks that go beyond a route. Whether a caller may use a route at all is decided once, by the
 * route table ({@code auth.RouteRules}) that the security chain enforces before any handler runs; a handler never
 * checks its route's role again. What remains depends on the caller within a route, and is named here:
 * <ul>
 *     <li>an order socket's method needs its own role (the spec's table under Order socket),</li>
 *     <li>the chat's {@code deliver_event} acts with the chat caller's role, so it needs an operator,</li>
 *     <li>operators see why a webhook delivery was refused, others a generic text,</li>
 *     <li>operators see the readiness checks on {@code GET /health}, others the contract's answer.</li>
 * </ul>
 * The first person of a team (shared password or open deployment only) is a rule of the team's data and stays with
 * the team's routes.
 */
@Component
public class Access {

    private final CallerResolver resolver;

    public Access(CallerResolver resolver) {
        this.resolver = resolver;
    }

    /** The caller the security chain authenticated for this exchange; 401 where it authenticated nobody. */
    public Mono<Caller> caller(ServerWebExchange exchange) {
        return resolver.resolve(exchange);
    }

    /** Whether {@code caller} may call an order socket method that needs {@code needed}. */
    public static boolean mayCall(Caller caller, Role needed) {
        return Role.of(caller.role()).covers(needed);
    }

    /** Whether the chat's {@code deliver_event} may deliver for {@code caller}: as the deliver route, an operator. */
    public static boolean mayDeliverFromChat(Caller caller) {
        return Role.of(caller.role()).covers(Role.OPERATOR);
    }

    /** Whether {@code caller} sees why a webhook delivery was refused (the address its url resolved to). */
    public static boolean seesDeliveryRefusals(Caller caller) {
        return Role.of(caller.role()).covers(Role.OPERATOR);
    }

    /** Whether {@code caller} sees the readiness checks on {@code GET /health}. */
    public static boolean seesReadiness(Caller caller) {
        return Role.of(caller.role()).covers(Role.OPERATOR);
    }
}
