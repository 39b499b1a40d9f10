package io.orderflow.gateway.api;

import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;

/**
 * A request the gateway answers with an error status and an {@link ApiError} body, before anything reaches Kafka
 * (or, for 503, when the processor could not be reached in time).
 */
public final class ApiException extends RuntimeException {

    private final HttpStatus status;
    private final ApiError body;
    private final Map<String, String> headers;

    public ApiException(HttpStatus status, ApiError body, Map<String, String> headers) {
        super(body.error(), null, false, false);
        this.status = status;
        this.body = body;
        this.headers = headers;
    }

    public static ApiException badRequest(String error) {
        return new ApiException(HttpStatus.BAD_REQUEST, ApiError.of(error), Map.of());
    }

    public static ApiException invalidBody(List<ApiError.Issue> issues) {
        return new ApiException(HttpStatus.BAD_REQUEST, new ApiError("Invalid request body", issues), Map.of());
    }

    public static ApiException notFound(String error) {
        return new ApiException(HttpStatus.NOT_FOUND, ApiError.of(error), Map.of());
    }

    public static ApiException conflict(String error) {
        return new ApiException(HttpStatus.CONFLICT, ApiError.of(error), Map.of());
    }

    /** 401: a missing, wrong or revoked credential, or a session that has ended. */
    public static ApiException unauthorized(String error) {
        return new ApiException(HttpStatus.UNAUTHORIZED, ApiError.of(error), Map.of());
    }

    /** 429 with {@code Retry-After} in seconds. */
    public static ApiException tooManyRequests(String error, long retryAfterSeconds) {
        return new ApiException(HttpStatus.TOO_MANY_REQUESTS, ApiError.of(error),
                Map.of("Retry-After", Long.toString(retryAfterSeconds)));
    }

    /** 415: a body that is not declared {@code application/json}. */
    public static ApiException unsupportedMediaType() {
        return new ApiException(HttpStatus.UNSUPPORTED_MEDIA_TYPE, ApiError.of(ErrorResponses.NOT_JSON), Map.of());
    }

    public static ApiException forbidden(String error) {
        return new ApiException(HttpStatus.FORBIDDEN, ApiError.of(error), Map.of());
    }

    /** 503 with {@code Retry-After}: the command may still apply, so clients retry with an Idempotency-Key. */
    public static ApiException unavailable(String error) {
        return new ApiException(HttpStatus.SERVICE_UNAVAILABLE, ApiError.of(error), Map.of("Retry-After", "5"));
    }

    public HttpStatus status() {
        return status;
    }

    public ApiError body() {
        return body;
    }

    public Map<String, String> headers() {
        return headers;
    }
}
