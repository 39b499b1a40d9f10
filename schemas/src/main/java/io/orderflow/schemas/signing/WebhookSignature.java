package io.orderflow.schemas.signing;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The signature header of webhooks, outbound and inbound:
 * {@code t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>}.
 *
 * <p>Part of the contract rather than of a service: the dispatcher signs with it, the gateway's signed inbound endpoint
 * verifies with it, and a subscriber on the JVM can verify deliveries with it, depending on {@code schemas} alone. Verification works on the raw body bytes, compares in constant time and accepts a timestamp
 * at most {@link #TOLERANCE} away from the given clock instant (in either direction).
 */
public final class WebhookSignature {

    /** The clock tolerance for signatures, inbound and outbound (spec, "Limits"). */
    public static final Duration TOLERANCE = Duration.ofMinutes(5);

    private static final String ALGORITHM = "HmacSHA256";
    private static final HexFormat HEX = HexFormat.of();

    /** What verification found. Everything but {@link #VALID} is answered with 401. */
    public enum Result {
        VALID,
        /** No header, or a blank one. */
        MISSING,
        /** Not exactly one {@code t} and one {@code v1} with a decimal timestamp and a 64-digit hex digest. */
        MALFORMED,
        /** The timestamp is more than five minutes away from now. */
        STALE,
        /** The digest does not match this body and secret. */
        MISMATCH;

        public boolean valid() {
            return this == VALID;
        }
    }

    private WebhookSignature() {
    }

    /** The header value for {@code rawBody} signed with {@code secret} at {@code timestamp} (whole seconds). */
    public static String sign(String secret, Instant timestamp, byte[] rawBody) {
        long seconds = timestamp.getEpochSecond();
        return "t=" + seconds + ",v1=" + HEX.formatHex(digest(secret, seconds, rawBody));
    }

    public static String sign(String secret, Instant timestamp, String rawBody) {
        return sign(secret, timestamp, rawBody.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Checks {@code header} against {@code rawBody} (the bytes as received, before any parsing) and {@code secret},
     * with {@code now} from the server clock.
     */
    public static Result verify(String secret, String header, byte[] rawBody, Instant now) {
        Objects.requireNonNull(secret, "secret");
        Objects.requireNonNull(rawBody, "rawBody");
        if (header == null || header.isBlank()) {
            return Result.MISSING;
        }
        Parsed parsed = parse(header);
        if (parsed == null) {
            return Result.MALFORMED;
        }
        long age = now.getEpochSecond() - parsed.timestamp();
        if (Math.abs(age) > TOLERANCE.toSeconds()) {
            return Result.STALE;
        }
        byte[] expected = digest(secret, parsed.timestamp(), rawBody);
        return MessageDigest.isEqual(expected, parsed.v1()) ? Result.VALID : Result.MISMATCH;
    }

    public static Result verify(String secret, String header, String rawBody, Instant now) {
        return verify(secret, header, rawBody.getBytes(StandardCharsets.UTF_8), now);
    }

    /** The most {@code v1} values {@link #verifyDelivery} looks at: a rotation adds one, so two are the most sent. */
    public static final int MAX_SIGNATURES = 4;

    /**
     * For a receiver of outbound webhooks: like {@link #verify}, but the header may carry up to
     * {@value #MAX_SIGNATURES} {@code v1} values over one {@code t}, as a delivery does while its subscription's
     * secret is rotated ({@code t=<t>,v1=<new>,v1=<old>}); valid when any of them matches {@code secret}.
     */
    public static Result verifyDelivery(String secret, String header, byte[] rawBody, Instant now) {
        Objects.requireNonNull(secret, "secret");
        if (header == null || header.isBlank()) {
            return Result.MISSING;
        }
        String[] parts = header.split(",", MAX_SIGNATURES + 2);
        String timestamp = null;
        int signatures = 0;
        for (String part : parts) {
            if (part.strip().startsWith("t=")) {
                if (timestamp != null) {
                    return Result.MALFORMED;
                }
                timestamp = part.strip();
            } else {
                signatures++;
            }
        }
        if (timestamp == null || signatures == 0 || signatures > MAX_SIGNATURES) {
            return Result.MALFORMED;
        }
        Result verdict = Result.MALFORMED;
        for (String part : parts) {
            if (!part.strip().startsWith("t=")) {
                verdict = verify(secret, timestamp + "," + part.strip(), rawBody, now);
                if (verdict.valid()) {
                    return verdict;
                }
            }
        }
        return verdict;
    }

    private record Parsed(long timestamp, byte[] v1) {
    }

    /** Exactly one {@code t} and one {@code v1}, nothing else; {@code null} when the header is malformed. */
    private static Parsed parse(String header) {
        String timestamp = null;
        String v1 = null;
        for (String part : header.split(",", -1)) {
            int eq = part.indexOf('=');
            if (eq <= 0) {
                return null;
            }
            String name = part.substring(0, eq).strip();
            String value = part.substring(eq + 1).strip();
            switch (name) {
                case "t" -> {
                    if (timestamp != null) {
                        return null;
                    }
                    timestamp = value;
                }
                case "v1" -> {
                    if (v1 != null) {
                        return null;
                    }
                    v1 = value;
                }
                default -> {
                    return null;
                }
            }
        }
        if (timestamp == null || v1 == null || !timestamp.matches("[0-9]{1,12}") || !v1.matches("[0-9a-fA-F]{64}")) {
            return null;
        }
        return new Parsed(Long.parseLong(timestamp), HEX.parseHex(v1.toLowerCase()));
    }

    private static byte[] digest(String secret, long seconds, byte[] rawBody) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM));
            mac.update((seconds + ".").getBytes(StandardCharsets.UTF_8));
            return mac.doFinal(rawBody);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available", e);
        }
    }
}
