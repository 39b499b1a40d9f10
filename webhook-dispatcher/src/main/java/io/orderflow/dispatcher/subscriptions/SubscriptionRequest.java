package io.orderflow.dispatcher.subscriptions;

import io.orderflow.schemas.requests.ApiRequest;
import io.orderflow.schemas.requests.RequestIssue;
import io.orderflow.schemas.requests.RequestValidation;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * The body of a subscription request, {@code {url, events?}}, checked by the shared
 * {@link ApiRequest#CREATE_WEBHOOK_SUBSCRIPTION} (its schema and the rules beyond it), exactly as the gateway checks it
 * before forwarding: the same verdict and the same issue paths on both sides.
 */
public final class SubscriptionRequest {

    /** A valid request, or the issues that make it invalid. */
    public sealed interface Parsed {
    }

    /** {@code events} defaults to {@code ["*"]}. */
    public record Valid(String url, List<String> events) implements Parsed {
    }

    public record Invalid(String error, List<RequestIssue> issues) implements Parsed {
    }

    private SubscriptionRequest() {
    }

    public static Parsed parse(String body) {
        return switch (ApiRequest.CREATE_WEBHOOK_SUBSCRIPTION.validate(body)) {
            case RequestValidation.Invalid invalid -> new Invalid(invalid.error(), invalid.issues());
            case RequestValidation.Valid valid -> {
                JsonNode events = valid.body().get("events");
                yield new Valid(valid.body().get("url").asString(), events == null
                        ? List.of(Subscription.ALL_EVENTS)
                        : events.valueStream().map(JsonNode::asString).toList());
            }
        };
    }
}
