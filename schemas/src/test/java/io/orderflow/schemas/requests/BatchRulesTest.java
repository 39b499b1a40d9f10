package io.orderflow.schemas.requests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A batch request: the schema, then the rules beyond it, with the issue paths a client can point at. */
class BatchRulesTest {

    private static List<RequestIssue> issues(String body) {
        return ApiRequest.CREATE_BATCH.validate(body) instanceof RequestValidation.Invalid invalid
                ? invalid.issues() : List.of();
    }

    @Test
    void each_action_with_what_it_needs_is_accepted() {
        assertThat(issues("""
                {"filter": {"status": "waiting", "type": "purchase_request"}, "action": "cancel", "reason": "dup"}"""))
                .isEmpty();
        assertThat(issues("""
                {"orderIds": ["ord_a", "ord_b"], "action": "deliver_event", "event": "payment.received",
                 "payload": {"source": "batch"}, "rate": 5}""")).isEmpty();
        assertThat(issues("""
                {"filter": {}, "action": "decide_approval", "nodeId": "approval", "decision": "approved",
                 "note": "budgeted"}""")).isEmpty();
        assertThat(issues("{\"filter\": {\"status\": \"failed\"}, \"action\": \"retry_incident\"}")).isEmpty();
    }

    @Test
    void empty_fields_of_other_actions_as_generated_clients_send_them_are_not_refused() {
        assertThat(issues("""
                {"orderIds": ["ord_1"], "action": "cancel", "reason": "Duplicate", "mapping": {}}""")).isEmpty();
        assertThat(issues("{\"filter\": {}, \"action\": \"cancel\", \"reason\": \"x\", \"mapping\": {\"a\": \"b\"}}"))
                .containsExactly(new RequestIssue("/mapping", "is not used by the cancel action"));
    }

    @Test
    void an_action_without_what_it_needs_or_with_what_another_uses_is_refused() {
        assertThat(issues("{\"filter\": {}, \"action\": \"cancel\"}"))
                .containsExactly(new RequestIssue("/reason", "is required by the cancel action"));
        assertThat(issues("{\"filter\": {}, \"action\": \"decide_approval\", \"decision\": \"approved\"}"))
                .containsExactly(new RequestIssue("/nodeId", "is required by the decide_approval action"));
        assertThat(issues("{\"filter\": {}, \"action\": \"retry_incident\", \"reason\": \"x\"}"))
                .containsExactly(new RequestIssue("/reason", "is not used by the retry_incident action"));
        assertThat(issues("{\"filter\": {}, \"action\": \"cancel\", \"reason\": \"   \"}"))
                .extracting(RequestIssue::path).containsExactly("/reason");
        assertThat(issues("{\"filter\": {}, \"action\": \"cancel\", \"reason\": \"" + "r".repeat(501) + "\"}"))
                .containsExactly(new RequestIssue("/reason", "must be at most 500 characters"));
        assertThat(issues("{\"filter\": {}, \"action\": \"archive\"}")).extracting(RequestIssue::path)
                .containsExactly("/action");
    }

    @Test
    void orders_are_selected_one_way_each_once() {
        assertThat(issues("{\"action\": \"retry_incident\"}"))
                .containsExactly(new RequestIssue("", BatchRules.ONE_SELECTION));
        assertThat(issues("{\"filter\": {}, \"orderIds\": [\"ord_a\"], \"action\": \"retry_incident\"}"))
                .containsExactly(new RequestIssue("/orderIds", BatchRules.ONE_SELECTION));
        assertThat(issues("{\"orderIds\": [\"ord_a\", \"ord_a\"], \"action\": \"retry_incident\"}"))
                .containsExactly(new RequestIssue("/orderIds", BatchRules.EACH_ORDER_ONCE));
        assertThat(issues("{\"orderIds\": [\"not-an-order\"], \"action\": \"retry_incident\"}"))
                .extracting(RequestIssue::path).containsExactly("/orderIds/0");
        StringBuilder many = new StringBuilder("{\"action\": \"retry_incident\", \"orderIds\": [");
        for (int i = 0; i <= 1000; i++) {
            many.append(i == 0 ? "" : ",").append("\"ord_").append(i).append('"');
        }
        assertThat(issues(many + "]}")).extracting(RequestIssue::path).containsExactly("/orderIds");
    }

    @Test
    void a_filter_is_the_lists_filters_with_a_window_that_is_not_backwards() {
        assertThat(issues("{\"filter\": {\"status\": \"sleeping\"}, \"action\": \"retry_incident\"}"))
                .extracting(RequestIssue::path).containsExactly("/filter/status");
        assertThat(issues("{\"filter\": {\"color\": \"red\"}, \"action\": \"retry_incident\"}")).hasSize(1);
        assertThat(issues("{\"filter\": {\"since\": 20, \"until\": 10}, \"action\": \"retry_incident\"}"))
                .containsExactly(new RequestIssue("/filter/until", BatchRules.UNTIL_BEFORE_SINCE));
        assertThat(issues("{\"filter\": {\"q\": \"" + "q".repeat(201) + "\"}, \"action\": \"retry_incident\"}"))
                .containsExactly(new RequestIssue("/filter/q", "must be at most 200 characters"));
    }

    @Test
    void an_event_payload_is_bounded() {
        String big = "{\"filter\": {}, \"action\": \"deliver_event\", \"event\": \"e\", \"payload\": {\"text\": \""
                + "x".repeat(BatchRules.MAX_PAYLOAD_BYTES) + "\"}}";
        assertThat(issues(big)).containsExactly(new RequestIssue("/payload",
                "must be at most " + BatchRules.MAX_PAYLOAD_BYTES + " bytes as JSON"));
        assertThat(issues("{\"filter\": {}, \"action\": \"deliver_event\", \"event\": \"e\", \"rate\": 0}"))
                .containsExactly(new RequestIssue("/rate", "must be at least 1"));
    }
}
