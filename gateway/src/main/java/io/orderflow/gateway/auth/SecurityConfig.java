package io.orderflow.gateway.auth;

import io.orderflow.gateway.api.ApiException;
import io.orderflow.gateway.auth.Credentials.ApiTokenValue;
import io.orderflow.gateway.auth.Credentials.InternalTokenValue;
import io.orderflow.gateway.auth.Credentials.Nothing;
import io.orderflow.gateway.auth.Credentials.Presented;
import io.orderflow.gateway.auth.Credentials.SessionCookie;
import io.orderflow.gateway.auth.Credentials.SharedPasswordBearer;
import io.orderflow.gateway.auth.RouteRules.Need;
import io.orderflow.gateway.auth.RouteRules.Rule;
import io.orderflow.gateway.caller.Role;
import io.orderflow.internal.InternalToken;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpCookie;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.annotation.web.reactive.EnableWebFluxSecurity;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.config.web.server.SecurityWebFiltersOrder;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.authentication.AuthenticationWebFilter;
import org.springframework.security.web.server.authentication.DelegatingServerAuthenticationConverter;
import org.springframework.security.web.server.authentication.ServerAuthenticationConverter;
import org.springframework.security.web.server.context.NoOpServerSecurityContextRepository;
import org.springframework.security.web.server.savedrequest.NoOpServerRequestCache;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatcher;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatcher.MatchResult;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatchers;
import reactor.core.publisher.Mono;

/**
 * The security chain: one authentication converter per mechanism (bearer token or shared password, session cookie,
 * nothing on an open deployment), one manager that checks them ({@link PrincipalAuthenticator}), and the route table
 * ({@link RouteRules}) for authorization. Stateless: every request presents its credentials again. Errors are thrown
 * as {@link ApiException}s, so they render in the API's one error shape.
 *
 * <p>No CSRF tokens: the session cookie is {@code SameSite=Lax}, so browsers do not send it with cross-site POSTs;
 * a sibling origin of the same site is refused by {@link CrossSiteRequests} ahead of this chain (a cookie caller's
 * change must come from the gateway's own origin, and a body must be declared {@code application/json}).
 */
@Configuration
@EnableWebFluxSecurity
class SecurityConfig {

    /**
     * No observation of Spring Security's own: each of its filters would be wrapped in one (a timer and a span per
     * filter, per request), about a tenth of a list read's CPU in a profile (docs/performance.md). With this setting
     * the filter chain is not even decorated; the request's own {@code http.server.requests} timer and span stay.
     */
    @Bean
    SecurityObservationSettings securityObservations() {
        return SecurityObservationSettings.noObservations();
    }

    @Bean
    PasswordEncoder passwordEncoder() {
        return PasswordEncoderFactories.createDelegatingPasswordEncoder(); // bcrypt, self-describing hashes
    }

    @Bean
    SecurityWebFilterChain securityChain(ServerHttpSecurity http, PrincipalAuthenticator authenticator,
                                         ClientAddress clientAddress, InternalToken internalToken) {
        AuthenticationWebFilter authentication = new AuthenticationWebFilter(authenticator);
        authentication.setServerAuthenticationConverter(new DelegatingServerAuthenticationConverter(
                internalTokenOnMetrics(internalToken, clientAddress), bearer(clientAddress), sessionCookie(),
                nothingOnAnOpenDeployment(authenticator)));
        authentication.setRequiresAuthenticationMatcher(routesWithCallers());
        authentication.setSecurityContextRepository(NoOpServerSecurityContextRepository.getInstance());
        authentication.setAuthenticationFailureHandler((exchange, e) -> Mono.error(
                e instanceof GuessLimiter.TooManyGuesses limited
                        ? ApiException.tooManyRequests(limited.getMessage(), limited.retryAfterSeconds())
                        : ApiException.unauthorized(e.getMessage())));

        return http
                .csrf(ServerHttpSecurity.CsrfSpec::disable)
                .httpBasic(ServerHttpSecurity.HttpBasicSpec::disable)
                .formLogin(ServerHttpSecurity.FormLoginSpec::disable)
                .logout(ServerHttpSecurity.LogoutSpec::disable)
                .anonymous(ServerHttpSecurity.AnonymousSpec::disable)
                .requestCache(cache -> cache.requestCache(NoOpServerRequestCache.getInstance()))
                .securityContextRepository(NoOpServerSecurityContextRepository.getInstance())
                .addFilterAt(authentication, SecurityWebFiltersOrder.AUTHENTICATION)
                .addFilterAt(healthCaller(authenticator, clientAddress), SecurityWebFiltersOrder.AUTHENTICATION)
                .authorizeExchange(routes -> {
                    for (Rule rule : RouteRules.RULES) {
                        var route = routes.pathMatchers(rule.method(), rule.path());
                        rule.need().role().ifPresentOrElse(role -> route.hasRole(role.name()), route::permitAll);
                    }
                    routes.anyExchange().permitAll(); // unknown routes answer 404, wrong methods 405
                })
                .exceptionHandling(errors -> errors
                        .authenticationEntryPoint((exchange, e) -> Mono.error(
                                ApiException.unauthorized(PrincipalAuthenticator.SIGN_IN_NEEDED)))
                        .accessDeniedHandler((exchange, e) -> Mono.error(ApiException.forbidden(
                                RouteRules.of(exchange.getRequest()).flatMap(rule -> rule.need().role())
                                        .map(Role::needed)
                                        .orElse("Not allowed")))))
                .build();
    }

    /**
     * {@code GET /health} needs nobody, but answers an operator more (HealthController): credentials that come with it
     * are checked, and credentials that fail leave the caller anonymous rather than answering 401.
     */
    private static AuthenticationWebFilter healthCaller(PrincipalAuthenticator authenticator,
                                                        ClientAddress clientAddress) {
        AuthenticationWebFilter health = new AuthenticationWebFilter(authenticator);
        health.setServerAuthenticationConverter(new DelegatingServerAuthenticationConverter(
                bearer(clientAddress), sessionCookie()));
        health.setRequiresAuthenticationMatcher(ServerWebExchangeMatchers.pathMatchers(HttpMethod.GET, "/health"));
        health.setSecurityContextRepository(NoOpServerSecurityContextRepository.getInstance());
        health.setAuthenticationFailureHandler((filter, e) -> filter.getChain().filter(filter.getExchange()));
        return health;
    }

    /** Authentication runs on every route that has a caller: not on the open ones, nor on the signed endpoint. */
    private static ServerWebExchangeMatcher routesWithCallers() {
        return exchange -> RouteRules.of(exchange.getRequest())
                .filter(rule -> rule.need() == Need.NONE || rule.need() == Need.SIGNATURE).isPresent()
                ? MatchResult.notMatch() : MatchResult.match();
    }

    /**
     * On the metrics scrape only, and only while {@code INTERNAL_TOKEN} is set: {@code X-Internal-Token}, or a bearer
     * value that is the internal token (Prometheus' {@code authorization} setting sends a bearer). Any other bearer
     * goes on to {@link #bearer}.
     */
    private static ServerAuthenticationConverter internalTokenOnMetrics(InternalToken token,
                                                                        ClientAddress clientAddress) {
        return exchange -> {
            var request = exchange.getRequest();
            if (token.value().isEmpty() || !RouteRules.METRICS.equals(request.getPath().pathWithinApplication().value())) {
                return Mono.empty();
            }
            String header = request.getHeaders().getFirst(InternalToken.HEADER);
            String authorization = request.getHeaders().getFirst(HttpHeaders.AUTHORIZATION);
            if (header == null && authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)
                    && token.accepts(authorization.substring(7).strip())) {
                header = authorization.substring(7).strip();
            }
            return header == null ? Mono.empty()
                    : Mono.just(new Presented(new InternalTokenValue(header, clientAddress.of(request))));
        };
    }

    /** {@code Authorization: Bearer <value>}: an API token by its prefix, otherwise the shared password. */
    private static ServerAuthenticationConverter bearer(ClientAddress clientAddress) {
        return exchange -> {
            String header = exchange.getRequest().getHeaders().getFirst(HttpHeaders.AUTHORIZATION);
            if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
                return Mono.empty();
            }
            String value = header.substring(7).strip();
            return Mono.just(new Presented(value.startsWith(Secrets.TOKEN_PREFIX) ? new ApiTokenValue(value)
                    : new SharedPasswordBearer(value, clientAddress.of(exchange.getRequest()))));
        };
    }

    private static ServerAuthenticationConverter sessionCookie() {
        return exchange -> {
            HttpCookie cookie = exchange.getRequest().getCookies().getFirst(SessionCookies.NAME);
            return cookie == null || cookie.getValue().isEmpty() ? Mono.empty()
                    : Mono.just(new Presented(new SessionCookie(cookie.getValue())));
        };
    }

    /** No credentials: enough on an open deployment; elsewhere the route rules answer 401 (or 404 for no route). */
    private static ServerAuthenticationConverter nothingOnAnOpenDeployment(PrincipalAuthenticator authenticator) {
        return exchange -> authenticator.ready().then(Mono.fromSupplier(
                () -> authenticator.open() ? new Presented(new Nothing()) : null));
    }
}
