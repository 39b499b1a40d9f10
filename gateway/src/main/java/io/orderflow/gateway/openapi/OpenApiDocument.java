package io.orderflow.gateway.openapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.gateway.validation.RequestSchema;
import io.orderflow.schemas.json.Json;
import io.swagger.v3.core.util.Json31;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.parameters.RequestBody;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import tools.jackson.databind.node.ObjectNode;

/**
 * The published OpenAPI 3.1 document ({@code GET /api/v1/openapi.json}). Request bodies are the very
 * {@link RequestSchema}s the handlers validate with; responses are described from {@code openapi/responses.json}
 * as the spec gives them.
 */
@Configuration
class OpenApiDocument {

    private static final String JSON = "application/json";
    private static final Pattern REFERENCE = Pattern.compile("#/components/schemas/([^\"/]+)");
    private static final Map<String, RequestSchema> REQUEST_BODIES = Map.ofEntries(
            Map.entry("startOrder", RequestSchema.START_ORDER),
            Map.entry("deliverEvent", RequestSchema.DELIVER_EVENT),
            Map.entry("decideApproval", RequestSchema.DECIDE_APPROVAL),
            Map.entry("cancelOrder", RequestSchema.CANCEL_ORDER),
            Map.entry("migrateOrder", RequestSchema.MIGRATE_ORDER),
            Map.entry("dismissIncident", RequestSchema.DISMISS_INCIDENT),
            Map.entry("createWebhookSubscription", RequestSchema.CREATE_WEBHOOK_SUBSCRIPTION),
            Map.entry("receiveSignedEvent", RequestSchema.SIGNED_EVENT),
            Map.entry("signIn", RequestSchema.SIGN_IN),
            Map.entry("addPerson", RequestSchema.ADD_PERSON),
            Map.entry("updatePerson", RequestSchema.UPDATE_PERSON),
            Map.entry("createToken", RequestSchema.CREATE_TOKEN),
            Map.entry("replayWebhookDeliveries", RequestSchema.REPLAY_WEBHOOK_DELIVERIES),
            Map.entry("setClock", RequestSchema.SET_CLOCK),
            Map.entry("createBatch", RequestSchema.CREATE_BATCH));

    /** Swagger's own mapper for OpenAPI 3.1 models (Jackson 2, inside swagger-core). */
    private final ObjectMapper swagger = Json31.mapper();

    /** First: it sets each operation's responses, which later customizers (security) add to. */
    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    OpenApiCustomizer orderflowDocument() {
        JsonNode responses = readResource("/io/orderflow/gateway/openapi/responses.json");
        return openApi -> {
            openApi.info(new Info().title("Order workflow service").version("v1")
                    .description("Start, list, read, advance and cancel orders on published flows."));
            Components components = openApi.getComponents() == null ? new Components() : openApi.getComponents();
            openApi.components(components);
            responses.get("components").properties().forEach(e -> components.addSchemas(e.getKey(), schema(e.getValue())));
            for (RequestSchema request : RequestSchema.values()) {
                ObjectNode tree = (ObjectNode) request.schema();
                tree.remove("$schema"); // components of an OpenAPI 3.1 document are JSON Schema 2020-12 already
                components.addSchemas(request.componentName(), schema(tree));
            }
            openApi.getPaths().values().forEach(path -> path.readOperations()
                    .forEach(op -> describe(op, responses.get("operations").get(op.getOperationId()))));
            dropUnreferencedSchemas(openApi);
        };
    }

    /**
     * Keeps only the component schemas the operations reach. Springdoc also describes the handlers' Java return types
     * (a {@code JsonNode} "model" with {@code isArray}, {@code isObject}, ...), which the responses above replace; left
     * in, a generated Java client gets a {@code JsonNode} model class that clashes with Jackson's and does not compile.
     */
    private void dropUnreferencedSchemas(OpenAPI openApi) {
        Map<String, Schema> all = openApi.getComponents().getSchemas();
        Set<String> reached = new HashSet<>();
        Deque<String> todo = new ArrayDeque<>(references(openApi.getPaths()));
        while (!todo.isEmpty()) {
            String name = todo.pop();
            if (reached.add(name) && all.containsKey(name)) {
                todo.addAll(references(all.get(name)));
            }
        }
        all.keySet().retainAll(reached);
    }

    private List<String> references(Object part) {
        try {
            return REFERENCE.matcher(swagger.writeValueAsString(part)).results().map(m -> m.group(1)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void describe(Operation operation, JsonNode responses) {
        RequestSchema request = REQUEST_BODIES.get(operation.getOperationId());
        if (request != null) {
            operation.requestBody(new RequestBody()
                    .required(request != RequestSchema.CANCEL_ORDER)
                    .content(json(ref(request.componentName()))));
        }
        if (responses == null) {
            return;
        }
        ApiResponses described = new ApiResponses();
        responses.properties().forEach(e -> {
            JsonNode schema = e.getValue().get("schema");
            ApiResponse response = new ApiResponse().description(e.getValue().get("description").asText());
            if (!e.getValue().path("empty").asBoolean(false)) {
                response.content(json(schema != null ? schema(schema) : ref("Error")));
            }
            JsonNode headers = e.getValue().get("headers");
            if (headers != null) {
                headers.properties().forEach(h -> response.addHeaderObject(h.getKey(), new Header()
                        .description(h.getValue().asText()).schema(new StringSchema())));
            }
            described.addApiResponse(e.getKey(), response);
        });
        if (request != null && !described.containsKey("413")) {
            // every body is read under the request size limit (ErrorResponses)
            described.addApiResponse("413", new ApiResponse().description("Request body is too large")
                    .content(json(ref("Error"))));
        }
        operation.responses(described);
    }

    private Schema<?> schema(Object tree) {
        try {
            return swagger.readValue(tree instanceof tools.jackson.databind.JsonNode node ? Json.write(node)
                    : swagger.writeValueAsString(tree), Schema.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Schema<?> ref(String component) {
        return new Schema<>().$ref("#/components/schemas/" + component);
    }

    private static Content json(Schema<?> schema) {
        return new Content().addMediaType(JSON, new MediaType().schema(schema));
    }

    private JsonNode readResource(String name) {
        try (InputStream in = OpenApiDocument.class.getResourceAsStream(name)) {
            return swagger.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
