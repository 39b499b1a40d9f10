package io.orderflow.gateway.auth;

import io.orderflow.gateway.auth.Credentials.ApiTokenValue;
import io.orderflow.gateway.auth.Credentials.InternalTokenValue;
import io.orderflow.gateway.auth.Credentials.Nothing;
import io.orderflow.gateway.auth.Credentials.Presented;
import io.orderflow.gateway.auth.Credentials.SessionCookie;
import io.orderflow.gateway.auth.Credentials.SharedPasswordBearer;
import io.orderflow.gateway.auth.Principals.ApiToken;
import io.orderflow.gateway.auth.Principals.Person;
import io.orderflow.internal.InternalToken;
import io.orderflow.schemas.commands.Caller;
import java.time.Clock;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.authentication.ReactiveAuthenticationManager;
import org.springframework.security.core.Authentication;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * Checks what a request presented against the principals (rules 3 to 5 of Authentication): a known, unrevoked,
 * unexpired token acts with its role; the shared password acts as a break-glass operator; a session acts as its
 * person (or as the
 * shared password) while it stands; nothing at all is enough only on an open deployment. Anything else is a 401, and
 * a wrong shared-password bearer counts as a guess.
 */
@Component
public class PrincipalAuthenticator implements ReactiveAuthenticationManager {

    static final Caller SHARED_PASSWORD = new Caller("password", null, "operator");
    static final String SIGN_IN_NEEDED = "Sign in, or send an API token";
    /** Whoever holds {@code INTERNAL_TOKEN}, on the metrics scrape: Prometheus. */
    static final Caller INTERNAL = new Caller("internal", "internal-token", "operator");

    private final PrincipalDirectory directory;
    private final Sessions sessions;
    private final AuthProperties settings;
    private final GuessLimiter guesses;
    private final InternalToken internalToken;
    private final Clock clock;

    public PrincipalAuthenticator(PrincipalDirectory directory, Sessions sessions, AuthProperties settings,
                                  GuessLimiter guesses, InternalToken internalToken, Clock clock) {
        this.directory = directory;
        this.sessions = sessions;
        this.settings = settings;
        this.guesses = guesses;
        this.internalToken = internalToken;
        this.clock = clock;
    }

    /** Completes once every principal the topic held at start is known (until then nobody can be judged). */
    public Mono<Void> ready() {
        return directory.loaded();
    }

    /** Open deployment (rule 4): no shared password set and nobody registered. */
    public boolean open() {
        return settings.sharedPassword().isEmpty() && !directory.hasPeople();
    }

    @Override
    public Mono<Authentication> authenticate(Authentication presented) {
        Credentials credentials = ((Presented) presented).getCredentials();
        return directory.loaded().then(Mono.fromCallable(() -> switch (credentials) {
            case ApiTokenValue token -> token(token.value());
            case SharedPasswordBearer bearer -> sharedPassword(bearer);
            case InternalTokenValue internal -> internal(internal);
            case SessionCookie cookie -> session(cookie.value());
            case Nothing nothing -> nothing();
        }));
    }

    /** A known token that is neither revoked nor past its {@code expiresAt}; its use is noted (coarsely). */
    private Authentication token(String value) {
        long now = clock.millis();
        ApiToken token = directory.tokenByDigest(Secrets.sha256(value)).filter(t -> !t.revoked())
                .orElseThrow(() -> new BadCredentialsException("Unknown or revoked API token"));
        if (token.expired(now)) {
            throw new BadCredentialsException("This API token has expired");
        }
        directory.noteUse(token, now);
        return new CallerAuthentication(new Caller("token", "token:" + token.name(), token.role()), null);
    }

    private Authentication sharedPassword(SharedPasswordBearer bearer) {
        GuessLimiter.Guess guess = guesses.take(bearer.clientAddress());
        if (settings.sharedPassword().filter(expected -> Secrets.same(bearer.value(), expected)).isPresent()) {
            guess.right();
            return new CallerAuthentication(SHARED_PASSWORD, null);
        }
        return fail("Wrong bearer value: send an API token or the shared password");
    }

    /** A wrong value counts as a guess, as a wrong shared password does. */
    private Authentication internal(InternalTokenValue presented) {
        GuessLimiter.Guess guess = guesses.take(presented.clientAddress());
        if (internalToken.value().isPresent() && internalToken.accepts(presented.value())) {
            guess.right();
            return new CallerAuthentication(INTERNAL, null);
        }
        return fail("Wrong internal token");
    }

    private Authentication session(String cookieValue) {
        String digest = Secrets.sha256(cookieValue);
        return sessions.caller(digest).map(caller -> new CallerAuthentication(caller, digest))
                // a cookie left over from before is no obstacle where no sign-in is needed
                .or(() -> open() ? java.util.Optional.of(new CallerAuthentication(Caller.OPEN, null))
                        : java.util.Optional.empty())
                .orElseThrow(() -> new BadCredentialsException(SessionEnded.MESSAGE));
    }

    private Authentication nothing() {
        if (open()) {
            return new CallerAuthentication(Caller.OPEN, null);
        }
        return fail(SIGN_IN_NEEDED);
    }

    private static Authentication fail(String message) {
        throw new BadCredentialsException(message);
    }

    static Caller personCaller(Person person) {
        return new Caller("person", person.email(), person.role());
    }

    /** The words of rule 6 of Authentication, for a session that has ended. */
    public static final class SessionEnded {
        public static final String MESSAGE = "Your sign-in has ended. Reload the page to sign in again.";

        private SessionEnded() {
        }
    }
}
