package io.orderflow.gateway.validation;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.orderflow.gateway.api.ApiError;
import io.orderflow.gateway.api.ApiException;
import io.orderflow.schemas.json.Json;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.springframework.stereotype.Component;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/** Parses a request body and checks it against its {@link RequestSchema}; anything else is a 400 with issues. */
@Component
public class RequestValidator {

    private final Map<RequestSchema, Schema> schemas = new EnumMap<>(RequestSchema.class);

    public RequestValidator() {
        SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
        for (RequestSchema schema : RequestSchema.values()) {
            schemas.put(schema, registry.getSchema(schema.schema()));
        }
    }

    /**
     * The body as a tree once it satisfies {@code schema}. An empty body counts as {@code {}} (every schema's root
     * is an object, so a body-less cancel is fine and a body-less start lists what is missing).
     */
    public JsonNode validate(RequestSchema schema, String body) {
        JsonNode tree = parse(body);
        List<ApiError.Issue> issues = schemas.get(schema).validate(tree).stream().map(RequestValidator::issue).toList();
        if (!issues.isEmpty()) {
            throw ApiException.invalidBody(issues);
        }
        return tree;
    }

    private static JsonNode parse(String body) {
        if (body == null || body.isBlank()) {
            return Json.object();
        }
        try {
            return Json.MAPPER.readTree(body);
        } catch (JacksonException e) {
            throw new ApiException(org.springframework.http.HttpStatus.BAD_REQUEST,
                    new ApiError("Request body is not valid JSON", List.of(new ApiError.Issue("", e.getOriginalMessage()))),
                    Map.of());
        }
    }

    private static ApiError.Issue issue(Error error) {
        String path = error.getInstanceLocation().toString();
        return new ApiError.Issue(pointer(path), error.getMessage());
    }

    /** networknt reports {@code $.input.lines[0].qty}; the API reports JSON Pointers ({@code /input/lines/0/qty}). */
    private static String pointer(String path) {
        if (path.startsWith("/") || path.isEmpty()) {
            return path;
        }
        String rest = path.startsWith("$") ? path.substring(1) : path;
        return rest.replaceAll("\\[(\\d+)]", ".$1").replace('.', '/');
    }
}
