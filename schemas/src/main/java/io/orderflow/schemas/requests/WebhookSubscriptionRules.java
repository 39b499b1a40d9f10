package io.orderflow.schemas.requests;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * What a subscription request must satisfy beyond its schema, in the one place both the gateway and the
 * webhook-dispatcher check it: {@code "*"} stands alone and each event is named once (the schema says only "an array
 * of these names, {@code *} among them": client generators cannot compile a {@code oneOf} with an array {@code const},
 * nor {@code uniqueItems} on an array of an enum), and the url is https, or plain http only for {@code localhost},
 * {@code 127.0.0.1} and {@code [::1]}.
 */
public final class WebhookSubscriptionRules {

    /** Every event. */
    public static final String ALL_EVENTS = "*";
    public static final String STAR_ALONE = "\"*\" stands alone: send [\"*\"] for every event, or a list of event "
            + "names without it";
    public static final String EACH_ONCE = "Each event is named once";
    public static final String PLAIN_HTTP = "The url must use https; plain http is accepted only for localhost, "
            + "127.0.0.1 and [::1]";

    private static final Set<String> LOCAL_HOSTS = Set.of("localhost", "127.0.0.1", "[::1]");

    private WebhookSubscriptionRules() {
    }

    /** Issues of a body that already satisfies the schema (so {@code url} is a string, {@code events} an array). */
    static List<RequestIssue> check(JsonNode body) {
        List<RequestIssue> issues = new ArrayList<>();
        url(body.get("url").asString()).ifPresent(message -> issues.add(new RequestIssue("/url", message)));
        JsonNode events = body.get("events");
        if (events != null && events.size() > 1
                && events.valueStream().anyMatch(event -> ALL_EVENTS.equals(event.asString()))) {
            issues.add(new RequestIssue("/events", STAR_ALONE));
        } else if (events != null && events.valueStream().map(JsonNode::asString).distinct().count() < events.size()) {
            issues.add(new RequestIssue("/events", EACH_ONCE));
        }
        return List.copyOf(issues);
    }

    private static Optional<String> url(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            return Optional.of("Not a valid URL: " + e.getReason());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        String host = uri.getHost() == null ? null : uri.getHost().toLowerCase(Locale.ROOT);
        if (!uri.isAbsolute() || host == null || host.isEmpty() || uri.getUserInfo() != null) {
            return Optional.of("Not a valid URL: expected an absolute http(s) URL with a host");
        }
        if (scheme.equals("http") && !LOCAL_HOSTS.contains(host)) {
            return Optional.of(PLAIN_HTTP);
        }
        if (!scheme.equals("http") && !scheme.equals("https")) {
            return Optional.of("The url must use https");
        }
        return Optional.empty();
    }
}
