package io.orderflow.gateway.auth;

import io.orderflow.gateway.caller.Role;
import io.orderflow.dashboard.DashboardPages;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * The one authorization table: what every route of the API needs (rule 1 of Authentication: reads need viewer,
 * approval decisions approver, every other change operator). The security chain is built from it and enforces it
 * before any handler runs (handlers do not check a route's role again; what depends on the caller within a route is
 * named in {@link io.orderflow.gateway.caller.Access}), a 403 names the role from it, the OpenAPI document's security
 * requirements come from it, and the auth-matrix test walks it, so a route without a rule fails that test.
 */
public final class RouteRules {

    /** What a route needs from its caller. */
    public enum Need {
        /** Anyone: health, the OpenAPI document, signing in and out, the dashboard's pages. */
        NONE,
        /** An HMAC signature, checked by the route itself; no other mechanism. */
        SIGNATURE,
        VIEWER, APPROVER, OPERATOR;

        /** The role this need names, when it names one. */
        public Optional<Role> role() {
            return switch (this) {
                case NONE, SIGNATURE -> Optional.empty();
                case VIEWER -> Optional.of(Role.VIEWER);
                case APPROVER -> Optional.of(Role.APPROVER);
                case OPERATOR -> Optional.of(Role.OPERATOR);
            };
        }
    }

    /** One route: its method, its path as the OpenAPI document writes it, and what it needs. */
    public record Rule(HttpMethod method, String path, Need need, PathPattern pattern) {

        boolean matches(ServerHttpRequest request) {
            return method.equals(request.getMethod()) && pattern.matches(request.getPath().pathWithinApplication());
        }
    }

    /** The Prometheus scrape. */
    public static final String METRICS = "/actuator/prometheus";

    public static final List<Rule> RULES = Stream.concat(Stream.of(
            rule("GET", "/health", Need.NONE),
            rule("GET", "/api/v1/openapi.json", Need.NONE),
            rule("GET", "/api/v1/flows", Need.VIEWER),
            // beyond the contract: one version's graph, for the dashboard's migration mapping
            rule("GET", "/api/v1/flows/{id}/versions/{version}", Need.VIEWER),
            rule("POST", "/api/v1/orders", Need.OPERATOR),
            rule("GET", "/api/v1/orders", Need.VIEWER),
            rule("GET", "/api/v1/orders/counts", Need.VIEWER),
            rule("GET", "/api/v1/orders/{id}", Need.VIEWER),
            // the order socket's upgrade (not in the OpenAPI document); each method checks its own role (rule 6)
            rule("GET", "/api/v1/orders/{id}/socket", Need.VIEWER),
            // the list socket's upgrade (not in the OpenAPI document): which orders changed, for the list pages
            rule("GET", "/api/v1/order-updates/socket", Need.VIEWER),
            rule("POST", "/api/v1/orders/{id}/events", Need.OPERATOR),
            rule("POST", "/api/v1/orders/{id}/approvals/{nodeId}", Need.APPROVER),
            rule("POST", "/api/v1/orders/{id}/cancel", Need.OPERATOR),
            rule("POST", "/api/v1/orders/{id}/migrate", Need.OPERATOR),
            rule("GET", "/api/v1/approvals", Need.VIEWER),
            rule("GET", "/api/v1/incidents", Need.OPERATOR),
            // beyond the contract: resolving an incident (apply its record again, or dismiss it with a note)
            rule("POST", "/api/v1/incidents/{id}/retry", Need.OPERATOR),
            rule("POST", "/api/v1/incidents/{id}/dismiss", Need.OPERATOR),
            // beyond the contract: batch operations act on many orders at once, and their progress names orders and
            // what was refused, so reading them needs operator too
            rule("POST", "/api/v1/batches", Need.OPERATOR),
            rule("GET", "/api/v1/batches", Need.OPERATOR),
            rule("GET", "/api/v1/batches/{id}", Need.OPERATOR),
            rule("POST", "/api/v1/batches/{id}/stop", Need.OPERATOR),
            rule("GET", "/api/v1/system", Need.OPERATOR),
            // beyond the contract: the service clock of a test system (CLOCK_CONTROL; 404 while it is off)
            rule("GET", "/api/v1/clock", Need.VIEWER),
            rule("POST", "/api/v1/clock", Need.OPERATOR),
            rule("DELETE", "/api/v1/clock", Need.OPERATOR),
            rule("GET", "/api/v1/webhook-subscriptions", Need.VIEWER),
            rule("POST", "/api/v1/webhook-subscriptions", Need.OPERATOR),
            rule("GET", "/api/v1/webhook-subscriptions/{id}", Need.VIEWER),
            rule("DELETE", "/api/v1/webhook-subscriptions/{id}", Need.OPERATOR),
            rule("POST", "/api/v1/webhook-subscriptions/{id}/rotate-secret", Need.OPERATOR),
            rule("GET", "/api/v1/webhook-subscriptions/{id}/deliveries", Need.VIEWER),
            rule("POST", "/api/v1/webhook-subscriptions/{id}/deliveries/{deliveryId}/redeliver", Need.OPERATOR),
            rule("POST", "/api/v1/webhook-subscriptions/{id}/replay", Need.OPERATOR),
            rule("POST", "/api/v1/webhooks/events", Need.SIGNATURE),
            rule("POST", "/api/v1/auth/sign-in", Need.NONE),
            rule("POST", "/api/v1/auth/sign-out", Need.NONE),
            rule("GET", "/api/v1/auth/me", Need.VIEWER),
            rule("GET", "/api/v1/team/people", Need.VIEWER),
            rule("POST", "/api/v1/team/people", Need.OPERATOR),
            rule("PATCH", "/api/v1/team/people/{id}", Need.OPERATOR),
            rule("POST", "/api/v1/team/people/{id}/reset-password", Need.OPERATOR),
            rule("GET", "/api/v1/team/tokens", Need.VIEWER),
            rule("POST", "/api/v1/team/tokens", Need.OPERATOR),
            rule("DELETE", "/api/v1/team/tokens/{id}", Need.OPERATOR),
            // beyond the contract: the audit log says who changed whom on the team, for operators only
            rule("GET", "/api/v1/team/audit", Need.OPERATOR),
            // beyond the contract: the metrics scrape (incidents, lag, orders in flight), for operators and for
            // Prometheus with INTERNAL_TOKEN (not in the OpenAPI document)
            rule("GET", METRICS, Need.OPERATOR),
            // the dashboard's scripts and styles; its pages follow (not in the OpenAPI document). A page needs no
            // sign-in: it shows the sign-in form when GET /api/v1/auth/me answers 401, and the API guards the data
            rule("GET", DashboardPages.ASSETS, Need.NONE)),
            DashboardPages.PAGES.stream().map(page -> rule("GET", page, Need.NONE))).toList();

    private RouteRules() {
    }

    /** The rule of a request's route, if it has one. */
    public static Optional<Rule> of(ServerHttpRequest request) {
        return RULES.stream().filter(rule -> rule.matches(request)).findFirst();
    }

    /** The rule for an operation of the OpenAPI document. */
    public static Optional<Rule> of(String method, String path) {
        return RULES.stream().filter(rule -> rule.method().name().equals(method) && rule.path().equals(path))
                .findFirst();
    }

    private static Rule rule(String method, String path, Need need) {
        return new Rule(HttpMethod.valueOf(method), path, need, PathPatternParser.defaultInstance.parse(path));
    }
}
