package io.orderflow.schemas.requests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ApiRequestTest {

    private static List<RequestIssue> issues(ApiRequest request, String body) {
        return request.validate(body) instanceof RequestValidation.Invalid invalid ? invalid.issues() : List.of();
    }

    @Test
    void reports_each_issue_at_a_json_pointer_with_a_message() {
        List<RequestIssue> issues = issues(ApiRequest.START_ORDER, """
                {"flowId": "f", "input": {"type": "reorder", "currency": "JPY", "lines": [{"sku": "A", "qty": 0}]}}""");
        assertThat(issues).extracting(RequestIssue::path).containsExactlyInAnyOrder("/input/currency", "/input/lines/0/qty");
        assertThat(issues).allSatisfy(issue -> assertThat(issue.message()).isNotBlank());
    }

    @Test
    void lengths_and_ranges_read_as_the_start_form_says_them() {
        List<RequestIssue> issues = issues(ApiRequest.START_ORDER, """
                {"flowId": "f", "input": {"type": "reorder", "currency": "USD", "lines": [{"sku": "", "qty": 0}]}}""");
        assertThat(issues).containsExactlyInAnyOrder(new RequestIssue("/input/lines/0/sku", "must not be empty"),
                new RequestIssue("/input/lines/0/qty", "must be at least 1"));
        assertThat(issues(ApiRequest.ADD_PERSON, """
                {"email": "a@b.example", "name": "A", "role": "viewer", "password": "short"}"""))
                .containsExactly(new RequestIssue("/password", "must be at least 12 characters"));
    }

    @Test
    void an_empty_body_is_an_empty_object_and_bad_json_says_so() {
        assertThat(ApiRequest.CANCEL_ORDER.validate("")).isInstanceOf(RequestValidation.Valid.class);
        assertThat(issues(ApiRequest.DELIVER_EVENT, null)).hasSize(1);
        assertThat(ApiRequest.DELIVER_EVENT.validate("{nope")).isInstanceOfSatisfying(RequestValidation.Invalid.class,
                invalid -> assertThat(invalid.error()).isEqualTo(ApiRequest.INVALID_JSON));
    }

    @Test
    void the_star_is_an_event_name_in_the_schema_and_stands_alone_by_rule() {
        assertThat(ApiRequest.CREATE_WEBHOOK_SUBSCRIPTION.schema().at("/properties/events/items/enum").toString())
                .startsWith("[\"*\",");
        assertThat(ApiRequest.CREATE_WEBHOOK_SUBSCRIPTION.validate("{\"url\": \"https://a.example\", \"events\": [\"*\"]}"))
                .isInstanceOf(RequestValidation.Valid.class);
        assertThat(issues(ApiRequest.CREATE_WEBHOOK_SUBSCRIPTION,
                "{\"url\": \"https://a.example\", \"events\": [\"order.paid\", \"*\"]}"))
                .containsExactly(new RequestIssue("/events", WebhookSubscriptionRules.STAR_ALONE));
    }

    @Test
    void each_event_is_named_once() {
        assertThat(issues(ApiRequest.CREATE_WEBHOOK_SUBSCRIPTION,
                "{\"url\": \"https://a.example\", \"events\": [\"order.paid\", \"order.paid\"]}"))
                .containsExactly(new RequestIssue("/events", WebhookSubscriptionRules.EACH_ONCE));
    }

    @Test
    void plain_http_is_only_for_local_hosts() {
        assertThat(ApiRequest.CREATE_WEBHOOK_SUBSCRIPTION.validate("{\"url\": \"http://localhost:9000/h\"}"))
                .isInstanceOf(RequestValidation.Valid.class);
        assertThat(issues(ApiRequest.CREATE_WEBHOOK_SUBSCRIPTION, "{\"url\": \"http://example.com/h\"}"))
                .containsExactly(new RequestIssue("/url", WebhookSubscriptionRules.PLAIN_HTTP));
    }
}
