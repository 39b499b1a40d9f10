package io.orderflow.gateway.auth;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of authentication ({@code orderflow.auth.*}).
 *
 * @param appPassword    {@code APP_PASSWORD}: the shared break-glass password; blank means none
 * @param sessionTtl     how long a person's dashboard session lasts ({@code SESSION_TTL}, default 12 hours); a
 *                       shared-password session always lasts 30 days
 * @param trustedProxies {@code TRUSTED_PROXIES}: addresses or CIDR ranges of reverse proxies whose forwarded headers
 *                       ({@code Forwarded}, {@code X-Forwarded-*}) are believed ({@link TrustedProxies}); from any
 *                       other address they are ignored
 */
@ConfigurationProperties("orderflow.auth")
public record AuthProperties(String appPassword, Duration sessionTtl, List<String> trustedProxies) {

    public AuthProperties {
        appPassword = appPassword == null || appPassword.isEmpty() ? null : appPassword;
        sessionTtl = sessionTtl == null ? Duration.ofHours(12) : sessionTtl;
        trustedProxies = trustedProxies == null ? List.of()
                : trustedProxies.stream().map(String::strip).filter(s -> !s.isEmpty()).toList();
    }

    public Optional<String> sharedPassword() {
        return Optional.ofNullable(appPassword);
    }

    /** Never prints the shared password. */
    @Override
    public String toString() {
        return "AuthProperties[appPassword=" + (appPassword == null ? "unset" : "set") + ", sessionTtl=" + sessionTtl
                + ", trustedProxies=" + trustedProxies + "]";
    }
}
