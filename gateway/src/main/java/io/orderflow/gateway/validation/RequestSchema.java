package io.orderflow.gateway.validation;

import io.orderflow.schemas.requests.ApiRequest;
import tools.jackson.databind.JsonNode;

/**
 * The request bodies the gateway takes, by their name in the OpenAPI document. Each is an {@link ApiRequest} of the
 * {@code schemas} module: the handlers validate with it and the OpenAPI document publishes its schema, one source,
 * never written twice.
 */
public enum RequestSchema {
    START_ORDER("StartOrderRequest", ApiRequest.START_ORDER),
    DELIVER_EVENT("DeliverEventRequest", ApiRequest.DELIVER_EVENT),
    DECIDE_APPROVAL("DecideApprovalRequest", ApiRequest.DECIDE_APPROVAL),
    CANCEL_ORDER("CancelOrderRequest", ApiRequest.CANCEL_ORDER),
    DISMISS_INCIDENT("DismissIncidentRequest", ApiRequest.DISMISS_INCIDENT),
    CREATE_WEBHOOK_SUBSCRIPTION("CreateWebhookSubscriptionRequest", ApiRequest.CREATE_WEBHOOK_SUBSCRIPTION),
    SIGNED_EVENT("SignedEventRequest", ApiRequest.SIGNED_EVENT),
    SIGN_IN("SignInRequest", ApiRequest.SIGN_IN),
    ADD_PERSON("AddPersonRequest", ApiRequest.ADD_PERSON),
    UPDATE_PERSON("UpdatePersonRequest", ApiRequest.UPDATE_PERSON),
    CREATE_TOKEN("CreateTokenRequest", ApiRequest.CREATE_TOKEN),
    REPLAY_WEBHOOK_DELIVERIES("ReplayWebhookDeliveriesRequest", ApiRequest.REPLAY_WEBHOOK_DELIVERIES),
    SET_CLOCK("SetClockRequest", ApiRequest.SET_CLOCK),
    CREATE_BATCH("CreateBatchRequest", ApiRequest.CREATE_BATCH),
    MIGRATE_ORDER("MigrateOrderRequest", ApiRequest.MIGRATE_ORDER);

    private final String componentName;
    private final ApiRequest request;

    RequestSchema(String componentName, ApiRequest request) {
        this.componentName = componentName;
        this.request = request;
    }

    /** The name under {@code components.schemas} in the OpenAPI document. */
    public String componentName() {
        return componentName;
    }

    /** The schema document as a tree (a copy; callers may change it). */
    public JsonNode schema() {
        return request.schema();
    }

    ApiRequest request() {
        return request;
    }
}
