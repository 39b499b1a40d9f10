package io.orderflow.schemas.requests;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.orderflow.schemas.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Function;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The request bodies of the public API. Each is a JSON Schema 2020-12 file beside this class, which the OpenAPI
 * document publishes as it is, plus the few rules a schema cannot say in a form client generators understand (see
 * {@link WebhookSubscriptionRules}, {@link PersonRules}, {@link BatchRules}). Every service that takes one of these bodies checks it here, so the same body gets
 * the same verdict and the same issue paths (JSON Pointers) wherever it arrives.
 */
public enum ApiRequest {
    START_ORDER("start-order.json", body -> List.of()),
    DELIVER_EVENT("deliver-event.json", body -> List.of()),
    DECIDE_APPROVAL("decide-approval.json", body -> List.of()),
    CANCEL_ORDER("cancel-order.json", body -> List.of()),
    DISMISS_INCIDENT("dismiss-incident.json", body -> List.of()),
    CREATE_WEBHOOK_SUBSCRIPTION("create-webhook-subscription.json", WebhookSubscriptionRules::check),
    SIGNED_EVENT("signed-event.json", body -> List.of()),
    SIGN_IN("sign-in.json", body -> List.of()),
    ADD_PERSON("add-person.json", PersonRules::check),
    UPDATE_PERSON("update-person.json", body -> List.of()),
    CREATE_TOKEN("create-token.json", body -> List.of()),
    REPLAY_WEBHOOK_DELIVERIES("replay-webhook-deliveries.json", WebhookReplayRules::check),
    SET_CLOCK("set-clock.json", ClockRules::check),
    CREATE_BATCH("create-batch.json", BatchRules::check),
    MIGRATE_ORDER("migrate-order.json", MigrationRules::check);

    public static final String INVALID_BODY = "Invalid request body";
    public static final String INVALID_JSON = "Request body is not valid JSON";

    private final JsonNode tree;
    private final Schema schema;
    private final Function<JsonNode, List<RequestIssue>> rules;

    ApiRequest(String file, Function<JsonNode, List<RequestIssue>> rules) {
        this.tree = load("/io/orderflow/schemas/requests/" + file);
        this.schema = Registry.INSTANCE.getSchema(tree);
        this.rules = rules;
    }

    /** The schema document as a tree (a copy; callers may change it). */
    public JsonNode schema() {
        return tree.deepCopy();
    }

    /**
     * The body's verdict. An empty body counts as {@code {}} (every root is an object, so a body-less cancel is fine
     * and a body-less start lists what is missing). The rules beyond the schema run once the schema is satisfied.
     */
    public RequestValidation validate(String body) {
        JsonNode parsed;
        try {
            parsed = body == null || body.isBlank() ? Json.object() : Json.MAPPER.readTree(body);
        } catch (JacksonException e) {
            return new RequestValidation.Invalid(INVALID_JSON, List.of(new RequestIssue("", e.getOriginalMessage())));
        }
        List<RequestIssue> issues = schema.validate(parsed).stream().map(ApiRequest::issue).toList();
        if (issues.isEmpty()) {
            issues = rules.apply(parsed);
        }
        return issues.isEmpty() ? new RequestValidation.Valid(parsed)
                : new RequestValidation.Invalid(INVALID_BODY, issues);
    }

    private static RequestIssue issue(Error error) {
        return new RequestIssue(pointer(error.getInstanceLocation().toString()), message(error));
    }

    /**
     * The issue's message: the validator's, except for the length and range keywords, which read as the dashboard's
     * start form says them (it checks the same schema before sending): {@code must not be empty}, {@code must be at
     * least 3 characters}, {@code must be at most 200 characters}, {@code must be at least 1}, {@code must be at most
     * 1000}.
     */
    static String message(Error error) {
        Object[] arguments = error.getArguments();
        String limit = arguments != null && arguments.length > 0 ? String.valueOf(arguments[0]) : null;
        if (limit == null || error.getKeyword() == null) {
            return error.getMessage();
        }
        return switch (error.getKeyword()) {
            case "minLength" -> "1".equals(limit) ? "must not be empty" : "must be at least " + limit + " characters";
            case "maxLength" -> "must be at most " + limit + " characters";
            case "minimum" -> "must be at least " + limit;
            case "maximum" -> "must be at most " + limit;
            default -> error.getMessage();
        };
    }

    /** networknt may report {@code $.input.lines[0].qty}; the API reports JSON Pointers ({@code /input/lines/0/qty}). */
    static String pointer(String path) {
        if (path.startsWith("/") || path.isEmpty()) {
            return path;
        }
        String rest = path.startsWith("$") ? path.substring(1) : path;
        return rest.replaceAll("\\[(\\d+)]", ".$1").replace('.', '/');
    }

    private static JsonNode load(String resource) {
        try (InputStream in = ApiRequest.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Missing request schema " + resource);
            }
            return Json.MAPPER.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Enum constants cannot read a static field of their own class while they are built. */
    private static final class Registry {
        static final SchemaRegistry INSTANCE = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    }
}
