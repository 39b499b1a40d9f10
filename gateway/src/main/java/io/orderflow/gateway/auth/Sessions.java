package io.orderflow.gateway.auth;

import io.orderflow.gateway.api.ApiException;
import io.orderflow.gateway.auth.Principals.Person;
import io.orderflow.gateway.auth.Principals.Session;
import io.orderflow.schemas.commands.Caller;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;
import io.orderflow.gateway.limits.Pools;
import reactor.core.scheduler.Scheduler;

/**
 * Dashboard sessions: sign-in (a person by email and password, or the shared password alone), sign-out, and whether
 * a session still stands. A session has ended when it was signed out, has expired, its person was disabled or had
 * the password reset (both raise the person's generation), or, for the shared password, the password changed.
 */
@Component
public class Sessions {

    /** The shared-password session cookie lasts 30 days (spec, Limits). */
    static final Duration SHARED_PASSWORD_TTL = Duration.ofDays(30);
    static final String WRONG_SIGN_IN = "Wrong email or password";

    private final PrincipalDirectory directory;
    private final AuthProperties settings;
    private final PasswordEncoder passwords;
    private final GuessLimiter guesses;
    private final Scheduler hashing;
    private final Clock clock;
    /** Compared against when the email is unknown, so a wrong email takes as long as a wrong password. */
    private final String decoyHash;

    public Sessions(PrincipalDirectory directory, AuthProperties settings, PasswordEncoder passwords,
                    GuessLimiter guesses, Pools pools, Clock clock) {
        this.directory = directory;
        this.settings = settings;
        this.passwords = passwords;
        this.guesses = guesses;
        this.hashing = pools.passwords();
        this.clock = clock;
        this.decoyHash = passwords.encode(Secrets.random(16));
    }

    /** A new session and its cookie value (shown to the browser only), or 401 (429 past the guess limit). */
    public Mono<SignedIn> signIn(String email, String password, String clientAddress) {
        return directory.loaded().then(Mono.defer(() -> {
            GuessLimiter.Guess guess;
            try {
                guess = guesses.take(clientAddress); // counted before the hash check, so hashes in flight count too
            } catch (GuessLimiter.TooManyGuesses e) {
                return Mono.error(ApiException.tooManyRequests(e.getMessage(), e.retryAfterSeconds()));
            }
            String cookie = Secrets.random(32);
            String digest = Secrets.sha256(cookie);
            Optional<Session> session = email == null || email.isBlank()
                    ? sharedPasswordSession(digest, password)
                    : personSession(digest, email.strip(), password);
            if (session.isEmpty()) {
                return Mono.error(ApiException.unauthorized(WRONG_SIGN_IN));
            }
            guess.right();
            return directory.save(session.get())
                    .thenReturn(new SignedIn(cookie, session.get(), caller(session.get()).orElseThrow()));
        }).subscribeOn(hashing)); // a password hash check takes tens of milliseconds, on its own pool
    }

    /** A signed-in session: the cookie value goes to the browser once; only its digest is stored. */
    public record SignedIn(String cookieValue, Session session, Caller caller) {

        public Duration ttl() {
            return Duration.ofMillis(session.expiresAt() - session.createdAt());
        }
    }

    private Optional<Session> sharedPasswordSession(String digest, String password) {
        return settings.sharedPassword().filter(expected -> Secrets.same(password, expected)).map(expected -> {
            long now = clock.millis();
            return new Session(digest, null, 0, passwordEpoch(expected), now,
                    now + SHARED_PASSWORD_TTL.toMillis());
        });
    }

    private Optional<Session> personSession(String digest, String email, String password) {
        Optional<Person> person = directory.personByEmail(email);
        boolean matches = passwords.matches(password, person.map(Person::passwordHash).orElse(decoyHash));
        return person.filter(p -> matches && !p.disabled()).map(p -> {
            long now = clock.millis();
            return new Session(digest, p.id(), p.generation(), null, now,
                    now + settings.sessionTtl().toMillis());
        });
    }

    /** Ends the session with this cookie value, if it exists. */
    public Mono<Void> signOut(String cookieValue) {
        String digest = Secrets.sha256(cookieValue);
        return directory.session(digest).isPresent() ? directory.endSession(digest) : Mono.empty();
    }

    /** The caller of a session that still stands; empty when it has ended. */
    public Optional<Caller> caller(String sessionDigest) {
        return directory.session(sessionDigest).flatMap(this::caller);
    }

    private Optional<Caller> caller(Session session) {
        if (clock.millis() >= session.expiresAt()) {
            return Optional.empty();
        }
        if (session.personId() == null) {
            return settings.sharedPassword().filter(p -> passwordEpoch(p).equals(session.passwordEpoch()))
                    .map(p -> PrincipalAuthenticator.SHARED_PASSWORD);
        }
        return directory.person(session.personId())
                .filter(person -> !person.disabled() && person.generation() == session.generation())
                .map(PrincipalAuthenticator::personCaller);
    }

    private static String passwordEpoch(String password) {
        return Secrets.sha256("epoch:" + password).substring(0, 16);
    }
}
