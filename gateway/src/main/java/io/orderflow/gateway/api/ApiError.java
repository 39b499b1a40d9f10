package io.orderflow.gateway.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * The one error body of the API: {@code { error }}, plus {@code issues} when a request body is invalid.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ApiError(String error, List<Issue> issues) {

    /** One validation issue: where in the body ({@code /input/lines/0/qty}, empty for the root) and what is wrong. */
    public record Issue(String path, String message) {
    }

    public static ApiError of(String error) {
        return new ApiError(error, null);
    }
}
