package io.orderflow.gateway.validation;

import io.orderflow.schemas.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import tools.jackson.databind.JsonNode;

/**
 * The request body schemas (JSON Schema 2020-12) from the {@code schemas} module. The handlers validate with them
 * and the OpenAPI document publishes them: one source, never written twice.
 */
public enum RequestSchema {
    START_ORDER("StartOrderRequest", "start-order.json"),
    DELIVER_EVENT("DeliverEventRequest", "deliver-event.json"),
    DECIDE_APPROVAL("DecideApprovalRequest", "decide-approval.json"),
    CANCEL_ORDER("CancelOrderRequest", "cancel-order.json"),
    CREATE_WEBHOOK_SUBSCRIPTION("CreateWebhookSubscriptionRequest", "create-webhook-subscription.json"),
    SIGNED_EVENT("SignedEventRequest", "signed-event.json"),
    SIGN_IN("SignInRequest", "sign-in.json"),
    ADD_PERSON("AddPersonRequest", "add-person.json"),
    UPDATE_PERSON("UpdatePersonRequest", "update-person.json"),
    CREATE_TOKEN("CreateTokenRequest", "create-token.json");

    private static final String BASE = "/io/orderflow/schemas/requests/";

    private final String componentName;
    private final JsonNode schema;

    RequestSchema(String componentName, String file) {
        this.componentName = componentName;
        this.schema = load(BASE + file);
    }

    /** The name under {@code components.schemas} in the OpenAPI document. */
    public String componentName() {
        return componentName;
    }

    /** The schema document as a tree (a copy; callers may change it). */
    public JsonNode schema() {
        return schema.deepCopy();
    }

    private static JsonNode load(String resource) {
        try (InputStream in = RequestSchema.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Missing request schema " + resource);
            }
            return Json.MAPPER.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
