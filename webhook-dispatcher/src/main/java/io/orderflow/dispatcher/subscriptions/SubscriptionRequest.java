package io.orderflow.dispatcher.subscriptions;

import io.orderflow.schemas.events.OrderEvent;
import io.orderflow.schemas.json.Json;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * Validates the body of a subscription request, {@code {url, events?}}: the url must be https, plain http only for
 * {@code localhost}, {@code 127.0.0.1} and {@code [::1]}; events are names from {@link OrderEvent#NAMES} or
 * {@code ["*"]} (the default).
 */
public final class SubscriptionRequest {

    private static final Set<String> LOCAL_HOSTS = Set.of("localhost", "127.0.0.1", "[::1]");

    /** One problem with the body, at a JSON path. */
    public record Issue(String path, String message) {
    }

    /** A valid request, or the issues that make it invalid. */
    public sealed interface Parsed {
    }

    public record Valid(String url, List<String> events) implements Parsed {
    }

    public record Invalid(String error, List<Issue> issues) implements Parsed {
    }

    private SubscriptionRequest() {
    }

    public static Parsed parse(String body) {
        JsonNode json;
        try {
            json = body == null || body.isBlank() ? null : Json.MAPPER.readTree(body);
        } catch (JacksonException e) {
            return new Invalid("Request body is not valid JSON", List.of());
        }
        if (json == null || !json.isObject()) {
            return new Invalid("Invalid request body", List.of(new Issue("", "Expected an object { url, events? }")));
        }
        List<Issue> issues = new ArrayList<>();
        String url = url(json.get("url"), issues);
        List<String> events = events(json.get("events"), issues);
        return issues.isEmpty() ? new Valid(url, events) : new Invalid("Invalid request body", List.copyOf(issues));
    }

    private static String url(JsonNode node, List<Issue> issues) {
        if (node == null || node.isNull()) {
            issues.add(new Issue("url", "Required"));
            return null;
        }
        if (!node.isString() || node.asString().isBlank()) {
            issues.add(new Issue("url", "Expected a URL string"));
            return null;
        }
        String url = node.asString().strip();
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            issues.add(new Issue("url", "Not a valid URL: " + e.getReason()));
            return null;
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        String host = uri.getHost() == null ? null : uri.getHost().toLowerCase(Locale.ROOT);
        if (!uri.isAbsolute() || host == null || host.isEmpty() || uri.getUserInfo() != null) {
            issues.add(new Issue("url", "Not a valid URL: expected an absolute http(s) URL with a host"));
        } else if (scheme.equals("http")) {
            if (!LOCAL_HOSTS.contains(host)) {
                issues.add(new Issue("url",
                        "The url must use https; plain http is accepted only for localhost, 127.0.0.1 and [::1]"));
            }
        } else if (!scheme.equals("https")) {
            issues.add(new Issue("url", "The url must use https"));
        }
        return url;
    }

    private static List<String> events(JsonNode node, List<Issue> issues) {
        if (node == null || node.isNull()) {
            return List.of(Subscription.ALL_EVENTS);
        }
        String expected = "Expected [\"*\"] or a non-empty list of " + String.join(", ", OrderEvent.NAMES);
        if (!node.isArray() || node.isEmpty()) {
            issues.add(new Issue("events", expected));
            return List.of();
        }
        Set<String> events = new LinkedHashSet<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode event = node.get(i);
            if (event.isString() && (OrderEvent.NAMES.contains(event.asString())
                    || event.asString().equals(Subscription.ALL_EVENTS))) {
                events.add(event.asString());
            } else {
                issues.add(new Issue("events[" + i + "]", "Unknown event " + event + "; " + expected));
            }
        }
        if (events.contains(Subscription.ALL_EVENTS) && events.size() > 1) {
            issues.add(new Issue("events", "\"*\" stands alone: " + expected));
        }
        return List.copyOf(events);
    }
}
