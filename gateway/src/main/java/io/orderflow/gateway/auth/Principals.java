package io.orderflow.gateway.auth;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * What the {@code principals} topic holds, one record per key: {@code person:<id>}, {@code token:<sha-256 of the
 * value>} and {@code session:<sha-256 of the cookie value>}. No value of a token or cookie and no password is ever
 * stored, only digests and password hashes.
 */
public final class Principals {

    private Principals() {
    }

    /**
     * A person of the team.
     *
     * @param generation raised by a password reset and by disabling: sessions of an older generation have ended
     */
    public record Person(String id, String email, String name, String role, boolean disabled, String passwordHash,
                         long createdAt, int generation) {

        static String key(String id) {
            return "person:" + id;
        }

        @JsonIgnore
        public String key() {
            return key(id);
        }

        Person withRole(String newRole) {
            return new Person(id, email, name, newRole, disabled, passwordHash, createdAt, generation);
        }

        Person withDisabled(boolean newDisabled) {
            return new Person(id, email, name, role, newDisabled, passwordHash, createdAt,
                    newDisabled && !disabled ? generation + 1 : generation);
        }

        Person withPasswordHash(String newHash) {
            return new Person(id, email, name, role, disabled, newHash, createdAt, generation + 1);
        }
    }

    /**
     * An API token, keyed by the digest of its value.
     *
     * @param hint the last four characters of the value, so a person can tell tokens apart
     */
    public record ApiToken(String id, String name, String role, boolean revoked, long createdAt, String createdBy,
                           String hint, String digest) {

        static String key(String digest) {
            return "token:" + digest;
        }

        @JsonIgnore
        public String key() {
            return key(digest);
        }

        ApiToken revoke() {
            return new ApiToken(id, name, role, true, createdAt, createdBy, hint, digest);
        }
    }

    /**
     * A dashboard session, keyed by the digest of its cookie value. Signing out removes it.
     *
     * @param personId      the signed-in person, or {@code null} for the shared password
     * @param generation    the person's generation at sign-in
     * @param passwordEpoch for the shared password: a digest of the password signed in with, so changing
     *                      {@code APP_PASSWORD} ends those sessions
     */
    public record Session(String digest, String personId, int generation, String passwordEpoch, long createdAt,
                          long expiresAt) {

        static String key(String digest) {
            return "session:" + digest;
        }

        @JsonIgnore
        public String key() {
            return key(digest);
        }
    }
}
