package io.orderflow.gateway.auth;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * What the {@code principals} topic holds, one record per key: {@code person:<id>}, {@code token:<sha-256 of the
 * value>}, {@code session:<sha-256 of the cookie value>}, {@code used:<token id>} (when a token was last used),
 * {@code tokenname:<name>} (which token a name went to) and {@code audit:<id>} (the team's audit log). No value of a token or cookie and no password is ever
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
     * @param hint      the last four characters of the value, so a person can tell tokens apart
     * @param expiresAt epoch milliseconds from which the token is refused (401), or {@code null}: it does not expire
     */
    public record ApiToken(String id, String name, String role, boolean revoked, long createdAt, String createdBy,
                           String hint, String digest, Long expiresAt) {

        static String key(String digest) {
            return "token:" + digest;
        }

        @JsonIgnore
        public String key() {
            return key(digest);
        }

        ApiToken revoke() {
            return new ApiToken(id, name, role, true, createdAt, createdBy, hint, digest, expiresAt);
        }

        boolean expired(long now) {
            return expiresAt != null && now >= expiresAt;
        }
    }

    /**
     * When a token was last used, under its own key ({@code used:<token id>}) so that noting a use never rewrites the
     * token itself (a use noted on one gateway instance cannot undo a revocation made on another). Written at most once
     * per {@link PrincipalDirectory#USE_RESOLUTION} per token, so the time is that coarse.
     */
    public record TokenUse(String tokenId, long at) {

        static String key(String tokenId) {
            return "used:" + tokenId;
        }

        @JsonIgnore
        public String key() {
            return key(tokenId);
        }
    }

    /**
     * A claim on a token name, written before the token itself under a key of the name, so that every claim on one name
     * lands on one partition in one order: of two creations at the same instant (on one gateway or two) the claim read
     * first wins, on every instance alike. The token is written only by the winner.
     *
     * @param at when the claim was made; a claim whose token never followed (its gateway stopped in between) gives way
     *           to a later one after {@link PrincipalDirectory#CLAIM_HOLD}
     */
    public record TokenName(String name, String tokenId, long at) {

        static String key(String name) {
            return "tokenname:" + name;
        }

        @JsonIgnore
        public String key() {
            return key(name);
        }
    }

    /**
     * One change to the team, kept for the audit log ({@code audit:<id>}); never rewritten, never a secret.
     *
     * @param id         sortable by time: the epoch milliseconds, zero-padded, then a random part
     * @param actor      who made the change: an email, {@code token:<name>}, {@code password} or {@code open}
     * @param action     {@code person.added}, {@code person.role_changed}, {@code person.disabled},
     *                   {@code person.enabled}, {@code person.password_reset}, {@code token.created} or
     *                   {@code token.revoked}
     * @param targetId   the person's or token's id
     * @param target     the person's email or the token's name
     * @param summary    the change in words, e.g. "Role of bob@example.com: viewer → approver"
     */
    public record AuditEntry(String id, long at, String actor, String action, String targetId, String target,
                             String summary) {

        static String key(String id) {
            return "audit:" + id;
        }

        @JsonIgnore
        public String key() {
            return key(id);
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
