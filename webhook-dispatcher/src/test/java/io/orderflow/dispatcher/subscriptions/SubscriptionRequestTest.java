package io.orderflow.dispatcher.subscriptions;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.dispatcher.subscriptions.SubscriptionRequest.Invalid;
import io.orderflow.dispatcher.subscriptions.SubscriptionRequest.Valid;
import io.orderflow.schemas.requests.RequestIssue;
import io.orderflow.schemas.requests.WebhookSubscriptionRules;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The dispatcher's check of a subscription request: the shared one, with the gateway's issue paths (JSON Pointers). */
class SubscriptionRequestTest {

    @ParameterizedTest
    @ValueSource(strings = {"https://hooks.example.com/x", "HTTPS://hooks.example.com", "http://localhost:3000/h",
            "http://127.0.0.1/h", "http://[::1]:8080/h", "http://LOCALHOST/h"})
    void acceptsHttpsAndLocalHttp(String url) {
        assertThat(SubscriptionRequest.parse("{\"url\": \"" + url + "\"}"))
                .isEqualTo(new Valid(url, List.of("*")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://example.com/h", "http://10.0.0.1/h", "http://localhost.evil.com/h",
            "http://127.0.0.2/h", "ftp://example.com/h", "not a url", "https://", "/relative", "https:///path",
            "https://user:pass@example.com/h", "mailto:a@b.c"})
    void rejectsOtherUrls(String url) {
        assertThat(SubscriptionRequest.parse("{\"url\": \"" + url + "\"}"))
                .isInstanceOfSatisfying(Invalid.class, invalid -> assertThat(invalid.issues())
                        .extracting(RequestIssue::path).containsExactly("/url"));
    }

    @Test
    void explainsPlainHttp() {
        assertThat(SubscriptionRequest.parse("{\"url\": \"http://example.com\"}")).isEqualTo(new Invalid(
                "Invalid request body", List.of(new RequestIssue("/url", WebhookSubscriptionRules.PLAIN_HTTP))));
    }

    @Test
    void keepsTheNamedEventsInTheirOrder() {
        assertThat(SubscriptionRequest.parse(
                "{\"url\": \"https://a.example\", \"events\": [\"order.paid\", \"order.failed\"]}"))
                .isEqualTo(new Valid("https://a.example", List.of("order.paid", "order.failed")));
    }

    @Test
    void acceptsEveryEventNameAndTheStarAlone() {
        assertThat(SubscriptionRequest.parse("{\"url\": \"https://a.example\", \"events\": [\"order.paid\","
                + " \"order.invoiced\", \"order.shipped\", \"order.refunded\", \"order.completed\","
                + " \"order.declined\", \"order.cancelled\", \"order.failed\"]}")).isInstanceOf(Valid.class);
        assertThat(SubscriptionRequest.parse("{\"url\": \"https://a.example\", \"events\": [\"*\"]}"))
                .isEqualTo(new Valid("https://a.example", List.of("*")));
    }

    @Test
    void theStarStandsAlone() {
        assertThat(SubscriptionRequest.parse("{\"url\": \"https://a.example\", \"events\": [\"*\", \"order.paid\"]}"))
                .isEqualTo(new Invalid("Invalid request body",
                        List.of(new RequestIssue("/events", WebhookSubscriptionRules.STAR_ALONE))));
    }

    @ParameterizedTest
    @ValueSource(strings = {"[]", "\"order.paid\"", "[\"order.bogus\"]", "[\"*\", \"order.paid\"]", "[1]",
            "[\"ORDER.PAID\"]", "{}", "[\"order.paid\", \"order.paid\"]"})
    void rejectsOtherEventLists(String events) {
        assertThat(SubscriptionRequest.parse("{\"url\": \"https://a.example\", \"events\": " + events + "}"))
                .isInstanceOfSatisfying(Invalid.class, invalid -> assertThat(invalid.issues())
                        .extracting(RequestIssue::path).allMatch(path -> path.startsWith("/events")));
    }

    @Test
    void reportsEverySchemaIssueAtOnceAtTheGatewaysPaths() {
        assertThat(SubscriptionRequest.parse("{\"url\": 5, \"events\": [\"nope\"]}"))
                .isInstanceOfSatisfying(Invalid.class, invalid -> assertThat(invalid.issues())
                        .extracting(RequestIssue::path).containsExactlyInAnyOrder("/url", "/events/0"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "{", "[]", "null", "\"x\""})
    void rejectsBodiesThatAreNotAnObject(String body) {
        assertThat(SubscriptionRequest.parse(body)).isInstanceOf(Invalid.class);
    }
}
