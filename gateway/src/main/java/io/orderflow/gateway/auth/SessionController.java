package io.orderflow.gateway.auth;

import static io.orderflow.gateway.validation.RequestValidator.optionalText;

import io.orderflow.gateway.validation.RequestSchema;
import io.orderflow.gateway.validation.RequestValidator;
import io.orderflow.schemas.commands.Caller;
import io.swagger.v3.oas.annotations.Operation;
import java.util.Map;
import org.springframework.http.HttpCookie;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/** Signing in and out of the dashboard, and who the caller is. */
@RestController
@RequestMapping("/api/v1/auth")
class SessionController {

    private final Sessions sessions;
    private final PrincipalDirectory directory;
    private final PrincipalAuthenticator authenticator;
    private final RequestValidator validator;
    private final ClientAddress clientAddress;

    SessionController(Sessions sessions, PrincipalDirectory directory, PrincipalAuthenticator authenticator,
                      RequestValidator validator, ClientAddress clientAddress) {
        this.sessions = sessions;
        this.directory = directory;
        this.authenticator = authenticator;
        this.validator = validator;
        this.clientAddress = clientAddress;
    }

    /**
     * Who the caller is.
     *
     * @param kind           {@code person}, {@code token}, {@code password} (the shared password) or {@code open}
     * @param identity       what decisions are recorded as: the person's email or {@code token:<name>}; {@code null}
     *                       for the shared password and open use
     * @param openDeployment no shared password is set and nobody is registered: no sign-in is needed
     */
    record Me(String kind, String role, String identity, String email, String name, boolean openDeployment) {
    }

    @Operation(operationId = "signIn", summary = "Sign in: email and password, or the shared password alone",
            description = "Sets the HttpOnly session cookie owf_session. 401 for a wrong email or password; more than "
                    + "20 wrong attempts from one address in 15 minutes give 429 with Retry-After.")
    @PostMapping("/sign-in")
    Mono<ResponseEntity<Me>> signIn(@RequestBody(required = false) String body, ServerWebExchange exchange) {
        return Mono.fromCallable(() -> validator.validate(RequestSchema.SIGN_IN, body))
                .flatMap(request -> sessions.signIn(optionalText(request, "email"), request.get("password").asString(),
                        clientAddress.of(exchange.getRequest())))
                .map(signedIn -> ResponseEntity.ok()
                        .header(HttpHeaders.SET_COOKIE,
                                SessionCookies.issue(exchange, signedIn.cookieValue(), signedIn.ttl()).toString())
                        .body(me(signedIn.caller())));
    }

    @Operation(operationId = "signOut", summary = "Sign out: ends the session of the cookie and clears it")
    @PostMapping("/sign-out")
    Mono<ResponseEntity<Map<String, Boolean>>> signOut(ServerWebExchange exchange) {
        HttpCookie cookie = exchange.getRequest().getCookies().getFirst(SessionCookies.NAME);
        Mono<Void> ended = cookie == null || cookie.getValue().isEmpty() ? Mono.empty()
                : sessions.signOut(cookie.getValue());
        return ended.then(Mono.fromSupplier(() -> ResponseEntity.ok()
                .header(HttpHeaders.SET_COOKIE, SessionCookies.clear(exchange).toString())
                .body(Map.of("ok", true))));
    }

    @Operation(operationId = "whoAmI", summary = "Who the caller is, and whether the deployment is open")
    @GetMapping("/me")
    Mono<Me> me(ServerWebExchange exchange) {
        return exchange.getPrincipal().ofType(CallerAuthentication.class)
                .map(authentication -> me(authentication.caller()));
    }

    private Me me(Caller caller) {
        var person = "person".equals(caller.kind()) ? directory.personByEmail(caller.identity()) : java.util.Optional
                .<Principals.Person>empty();
        return new Me(caller.kind(), caller.role(), caller.identity(),
                person.map(Principals.Person::email).orElse(null), person.map(Principals.Person::name).orElse(null),
                authenticator.open());
    }

}
