package io.orderflow.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Optional;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.http.HttpHeaders;

/**
 * {@code INTERNAL_TOKEN} ({@code orderflow.internal.token}): the shared secret of the services' internal HTTP APIs.
 * The order-processor and the webhook-dispatcher require it on every request ({@link InternalApiGuard}); the gateway,
 * and a processor forwarding a read to another instance, send it in {@value #HEADER}. Blank means none: then a
 * service's internal API listens on loopback only.
 *
 * @param token the secret; blank is none
 */
@ConfigurationProperties("orderflow.internal")
public record InternalToken(String token) {

    /** The request header that carries the token. */
    public static final String HEADER = "X-Internal-Token";

    public InternalToken {
        token = token == null || token.isBlank() ? null : token;
    }

    /** No token: the internal APIs are open to whoever can reach them, so they must listen on loopback only. */
    public static InternalToken none() {
        return new InternalToken(null);
    }

    public Optional<String> value() {
        return Optional.ofNullable(token);
    }

    /**
     * Whether {@code presented} is the token, in time independent of where the two differ and of their lengths (the
     * SHA-256 digests are compared, with {@link MessageDigest#isEqual}). Without a token everything is accepted.
     */
    public boolean accepts(String presented) {
        if (token == null) {
            return true;
        }
        return presented != null && MessageDigest.isEqual(sha256(token), sha256(presented));
    }

    /** Adds the token to a request's headers (a client's default headers); nothing without a token. */
    public void addTo(HttpHeaders headers) {
        if (token != null) {
            headers.set(HEADER, token);
        }
    }

    private static byte[] sha256(String value) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every JDK has SHA-256", e);
        }
    }

    /** Never prints the token. */
    @Override
    public String toString() {
        return "InternalToken[" + (token == null ? "unset" : "set") + "]";
    }
}
