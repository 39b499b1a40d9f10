package io.orderflow.gateway.auth;

import io.orderflow.schemas.signing.Sha256;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/** Random secrets and their digests. Token and session values are stored only as their SHA-256. */
final class Secrets {

    /** The fixed prefix of every API token value: a bearer without it is a guess at the shared password. */
    static final String TOKEN_PREFIX = "owf_";

    private static final SecureRandom RANDOM = new SecureRandom();

    private Secrets() {
    }

    /** {@code bytes} random bytes, base64url without padding. */
    static String random(int bytes) {
        byte[] value = new byte[bytes];
        RANDOM.nextBytes(value);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(value);
    }

    static String newTokenValue() {
        return TOKEN_PREFIX + random(32);
    }

    static String sha256(String value) {
        return Sha256.hex(value);
    }

    /** Compares two secrets in time that does not depend on where they differ. */
    static boolean same(String given, String expected) {
        return MessageDigest.isEqual(digest(given), digest(expected));
    }

    private static byte[] digest(String value) {
        return Sha256.digest(value.getBytes(StandardCharsets.UTF_8));
    }
}
