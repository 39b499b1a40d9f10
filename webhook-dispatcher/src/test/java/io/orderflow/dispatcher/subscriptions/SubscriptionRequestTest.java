package io.orderflow.dispatcher.subscriptions;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.dispatcher.subscriptions.SubscriptionRequest.Invalid;
import io.orderflow.dispatcher.subscriptions.SubscriptionRequest.Issue;
import io.orderflow.dispatcher.subscriptions.SubscriptionRequest.Valid;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
                        .extracting(Issue::path).containsExactly("url"));
    }

    @Test
    void explainsPlainHttp() {
        assertThat(SubscriptionRequest.parse("{\"url\": \"http://example.com\"}")).isEqualTo(new Invalid(
                "Invalid request body", List.of(new Issue("url",
                "The url must use https; plain http is accepted only for localhost, 127.0.0.1 and [::1]"))));
    }

    @Test
    void keepsTheNamedEventsOnceEach() {
        assertThat(SubscriptionRequest.parse(
                "{\"url\": \"https://a.example\", \"events\": [\"order.paid\", \"order.failed\", \"order.paid\"]}"))
                .isEqualTo(new Valid("https://a.example", List.of("order.paid", "order.failed")));
    }

    @Test
    void acceptsEveryEventName() {
        assertThat(SubscriptionRequest.parse("{\"url\": \"https://a.example\", \"events\": [\"order.paid\","
                + " \"order.invoiced\", \"order.shipped\", \"order.refunded\", \"order.completed\","
                + " \"order.declined\", \"order.cancelled\", \"order.failed\"]}")).isInstanceOf(Valid.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"[]", "\"order.paid\"", "[\"order.bogus\"]", "[\"*\", \"order.paid\"]", "[1]",
            "[\"ORDER.PAID\"]", "{}"})
    void rejectsOtherEventLists(String events) {
        assertThat(SubscriptionRequest.parse("{\"url\": \"https://a.example\", \"events\": " + events + "}"))
                .isInstanceOfSatisfying(Invalid.class, invalid -> assertThat(invalid.issues())
                        .extracting(Issue::path).allMatch(path -> path.startsWith("events")));
    }

    @Test
    void reportsEveryIssueAtOnce() {
        assertThat(SubscriptionRequest.parse("{\"url\": 5, \"events\": [\"nope\"]}"))
                .isInstanceOfSatisfying(Invalid.class, invalid -> assertThat(invalid.issues())
                        .extracting(Issue::path).containsExactly("url", "events[0]"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "{", "[]", "null", "\"x\""})
    void rejectsBodiesThatAreNotAnObject(String body) {
        assertThat(SubscriptionRequest.parse(body)).isInstanceOf(Invalid.class);
    }
}
