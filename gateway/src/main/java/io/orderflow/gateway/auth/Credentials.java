package io.orderflow.gateway.auth;

import java.util.List;
import org.springframework.security.authentication.AbstractAuthenticationToken;

/**
 * What a request presented, before it is checked: one kind per mechanism. Each reaches the
 * {@link PrincipalAuthenticator} wrapped as an unauthenticated {@link Presented}.
 */
sealed interface Credentials {

    /** {@code Authorization: Bearer owf_...}. */
    record ApiTokenValue(String value) implements Credentials {
    }

    /** {@code Authorization: Bearer <anything without the token prefix>}: the shared password, or a guess at it. */
    record SharedPasswordBearer(String value, String clientAddress) implements Credentials {
    }

    /**
     * {@code INTERNAL_TOKEN}, in {@code X-Internal-Token} or as a bearer value, on the metrics scrape only (the one
     * route a scraper that is not a person uses).
     */
    record InternalTokenValue(String value, String clientAddress) implements Credentials {
    }

    /** The dashboard session cookie. */
    record SessionCookie(String value) implements Credentials {
    }

    /** Nothing at all, which is enough on an open deployment. */
    record Nothing() implements Credentials {
    }

    /** Credentials as an unauthenticated Spring Security token. */
    final class Presented extends AbstractAuthenticationToken {

        private final Credentials credentials;

        Presented(Credentials credentials) {
            super(List.of());
            this.credentials = credentials;
        }

        @Override
        public Credentials getCredentials() {
            return credentials;
        }

        @Override
        public Object getPrincipal() {
            return null;
        }
    }
}
