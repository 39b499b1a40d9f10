package io.orderflow.gateway.orders;

import io.orderflow.gateway.api.ApiError;
import io.orderflow.gateway.api.ApiException;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.query.OrderQueries;
import java.time.Duration;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;

/**
 * Reading your own writes: every change raises an order's {@code version}; a read answers it as its {@code ETag}
 * ({@code "<version>"}), honours {@code If-None-Match} (304) and waits a bounded time for {@code minVersion}; a
 * change names the version it was based on in {@code If-Match}, which the order's agent checks with the change
 * (412 when the order has moved on). Here are the header and parameter rules; nothing here reads the order's state
 * besides its version.
 */
final class OrderVersions {

    /** How long a read waits for {@code minVersion} before answering 503. */
    static final Duration MIN_VERSION_WAIT = Duration.ofSeconds(5);
    /** The longest pause between two reads while waiting; the first ones come sooner. */
    private static final long MAX_POLL_MILLIS = 200;
    /** The most digits a version has (a long); a longer header is refused before it is parsed. */
    private static final int MAX_DIGITS = 18;
    static final String RETRY_AFTER_SECONDS = "1";

    private OrderVersions() {
    }

    /**
     * The version an {@code If-Match} header names: {@code "7"} (or {@code 7}); {@code null} for none or {@code *}
     * (any version). Anything else is a 400: the check must not be skipped because the header was misspelt.
     */
    static Long ifMatch(String header) {
        if (header == null || header.isBlank() || header.trim().equals("*")) {
            return null;
        }
        Long version = parse(header.trim(), false);
        if (version == null) {
            throw ApiException.badRequest("If-Match must name one order version as an entity tag, such as \"7\"");
        }
        return version;
    }

    /** The {@code minVersion} query parameter: a version of 0 or more, {@code null} when absent. */
    static Long minVersion(String parameter) {
        if (parameter == null || parameter.isBlank()) {
            return null;
        }
        String value = parameter.trim();
        if (value.length() > MAX_DIGITS || !value.chars().allMatch(Character::isDigit)) {
            throw ApiException.badRequest("minVersion must be an order version, a whole number of 0 or more");
        }
        return Long.parseLong(value);
    }

    /**
     * Whether {@code If-None-Match} names the order's current entity tag ({@code *}, or one of a comma-separated list,
     * weak or strong, as the weak comparison RFC 9110 prescribes for {@code If-None-Match}).
     */
    static boolean noneMatch(String header, long version) {
        if (header == null || header.isBlank()) {
            return false;
        }
        for (String tag : header.split(",", 64)) {
            String trimmed = tag.trim();
            if (trimmed.equals("*")) {
                return true;
            }
            Long named = parse(trimmed, true);
            if (named != null && named == version) {
                return true;
            }
        }
        return false;
    }

    /** The version a tag names: {@code "7"}, {@code 7}, and with {@code weak} also {@code W/"7"}; else null. */
    private static Long parse(String tag, boolean weak) {
        String value = weak && tag.startsWith("W/") ? tag.substring(2) : tag;
        if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
            value = value.substring(1, value.length() - 1);
        }
        if (value.isEmpty() || value.length() > MAX_DIGITS || !value.chars().allMatch(Character::isDigit)) {
            return null;
        }
        return Long.parseLong(value);
    }

    /**
     * The version of a 2xx answer of the processor's order read: its {@code ETag}, or, from a processor that sets
     * none, the view's {@code version}; {@code null} when neither says.
     */
    static Long versionOf(ResponseEntity<byte[]> answer) {
        String etag = answer.getHeaders().getETag();
        if (etag != null) {
            Long version = parse(etag, true);
            if (version != null) {
                return version;
            }
        }
        byte[] body = answer.getBody();
        if (body == null) {
            return null;
        }
        try {
            JsonNode version = Json.MAPPER.readTree(body).get("version");
            return version != null && version.isIntegralNumber() ? version.asLong() : null;
        } catch (RuntimeException notJson) {
            return null;
        }
    }

    /**
     * {@code read} once, or, with {@code minVersion}, again after a short pause while it answers an older version,
     * for at most {@link #MIN_VERSION_WAIT}; then a 503 with {@code Retry-After}. No thread waits: the pauses are
     * timers. An answer other than 2xx (404, say) is answered at once.
     */
    static Mono<ResponseEntity<byte[]>> atLeast(Mono<ResponseEntity<byte[]>> read, String orderId,
                                               Long minVersion) {
        if (minVersion == null) {
            return read;
        }
        return Mono.defer(() -> read)
                .filter(answer -> !answer.getStatusCode().is2xxSuccessful() || reached(answer, minVersion))
                .repeatWhenEmpty(Integer.MAX_VALUE, pauses -> pauses.concatMap(round ->
                        Mono.delay(Duration.ofMillis(Math.min(MAX_POLL_MILLIS, 25L << Math.min(round, 4))))))
                .timeout(MIN_VERSION_WAIT, Mono.error(() -> new ApiException(HttpStatus.SERVICE_UNAVAILABLE,
                        ApiError.of("Order " + orderId + " has not reached version " + minVersion + " within "
                                + MIN_VERSION_WAIT.toSeconds() + " seconds; retry shortly"),
                        Map.of("Retry-After", RETRY_AFTER_SECONDS))));
    }

    private static boolean reached(ResponseEntity<byte[]> answer, long minVersion) {
        Long version = versionOf(answer);
        return version != null && version >= minVersion;
    }

    /**
     * The answer to a read: a 2xx with its {@code ETag} (set here when the processor set none), or 304 without a body
     * when {@code If-None-Match} names it; any other answer as it is.
     */
    static ResponseEntity<byte[]> conditional(ResponseEntity<byte[]> answer, String ifNoneMatch) {
        if (!answer.getStatusCode().is2xxSuccessful()) {
            return answer;
        }
        Long version = versionOf(answer);
        if (version == null) {
            return answer;
        }
        String etag = OrderQueries.etag(version);
        if (noneMatch(ifNoneMatch, version)) {
            return ResponseEntity.status(HttpStatus.NOT_MODIFIED).eTag(etag).build();
        }
        if (etag.equals(answer.getHeaders().getETag())) {
            return answer;
        }
        return ResponseEntity.status(answer.getStatusCode()).headers(answer.getHeaders()).eTag(etag)
                .body(answer.getBody());
    }

    /** A command's answer with the version it produced (the reply's {@code version}) as its {@code ETag}. */
    static String etagOf(JsonNode reply) {
        JsonNode version = reply == null ? null : reply.get("version");
        return version != null && version.isIntegralNumber() ? OrderQueries.etag(version.asLong()) : null;
    }
}
