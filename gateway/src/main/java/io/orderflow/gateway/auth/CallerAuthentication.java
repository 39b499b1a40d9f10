package io.orderflow.gateway.auth;

import io.orderflow.gateway.caller.Role;
import io.orderflow.schemas.commands.Caller;
import java.util.Arrays;
import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;

/**
 * An authenticated caller. Its authorities are its role and every role below it ({@code ROLE_VIEWER} ...
 * {@code ROLE_OPERATOR}), so a route rule names the least role it needs.
 *
 * @param sessionDigest set when the caller came with a session cookie: the order socket re-checks that session on
 *                      every method
 */
public final class CallerAuthentication extends AbstractAuthenticationToken {

    private final Caller caller;
    private final String sessionDigest;

    CallerAuthentication(Caller caller, String sessionDigest) {
        super(Arrays.stream(Role.values()).filter(Role.of(caller.role())::covers)
                .map(role -> new SimpleGrantedAuthority("ROLE_" + role.name())).toList());
        this.caller = caller;
        this.sessionDigest = sessionDigest;
        setAuthenticated(true);
    }

    public Caller caller() {
        return caller;
    }

    /** The session the caller signed in with, or {@code null} for tokens, the shared password bearer and open use. */
    public String sessionDigest() {
        return sessionDigest;
    }

    @Override
    public Object getCredentials() {
        return null;
    }

    @Override
    public Caller getPrincipal() {
        return caller;
    }

    @Override
    public String getName() {
        return caller.identity() != null ? caller.identity() : caller.kind();
    }
}
