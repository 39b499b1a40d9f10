package io.orderflow.schemas.requests;

import java.util.List;
import tools.jackson.databind.JsonNode;

/** The verdict on a request body: the parsed body, or why it is refused. */
public sealed interface RequestValidation {

    record Valid(JsonNode body) implements RequestValidation {
    }

    /** {@code error} is {@link ApiRequest#INVALID_BODY} or {@link ApiRequest#INVALID_JSON}. */
    record Invalid(String error, List<RequestIssue> issues) implements RequestValidation {
    }
}
