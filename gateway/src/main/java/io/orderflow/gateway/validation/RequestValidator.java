package io.orderflow.gateway.validation;

import io.orderflow.gateway.api.ApiError;
import io.orderflow.gateway.api.ApiException;
import io.orderflow.schemas.requests.RequestValidation;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;

/**
 * Checks a request body as {@link io.orderflow.schemas.requests.ApiRequest} says (its schema, and the rules beyond
 * it); anything else is a 400 with issues.
 */
@Component
public class RequestValidator {

    /** The body as a tree once it is valid. An empty body counts as {@code {}}. */
    public JsonNode validate(RequestSchema schema, String body) {
        return switch (schema.request().validate(body)) {
            case RequestValidation.Valid valid -> valid.body();
            case RequestValidation.Invalid invalid -> throw new ApiException(HttpStatus.BAD_REQUEST,
                    new ApiError(invalid.error(), invalid.issues().stream()
                            .map(issue -> new ApiError.Issue(issue.path(), issue.message())).toList()),
                    Map.of());
        };
    }

    /** An optional string field of a validated body: {@code null} when absent or JSON null. */
    public static String optionalText(JsonNode body, String field) {
        JsonNode value = body.get(field);
        return value == null || value.isNull() ? null : value.asString();
    }
}
