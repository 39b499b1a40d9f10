package io.orderflow.gateway.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.gateway.api.ApiError;
import io.orderflow.gateway.api.ApiException;
import org.junit.jupiter.api.Test;

class RequestValidatorTest {

    private final RequestValidator validator = new RequestValidator();

    @Test
    void reports_each_issue_with_a_json_pointer_and_a_message() {
        assertThatThrownBy(() -> validator.validate(RequestSchema.START_ORDER, """
                {"flowId": "f", "input": {"type": "reorder", "currency": "JPY", "lines": [{"sku": "A", "qty": 0}]}}"""))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status().value()).isEqualTo(400);
                    assertThat(e.body().issues()).extracting(ApiError.Issue::path)
                            .containsExactlyInAnyOrder("/input/currency", "/input/lines/0/qty");
                    assertThat(e.body().issues()).allSatisfy(i -> assertThat(i.message()).isNotBlank());
                });
    }

    @Test
    void a_missing_body_is_an_empty_object() {
        assertThat(validator.validate(RequestSchema.CANCEL_ORDER, "").isObject()).isTrue();
        assertThatThrownBy(() -> validator.validate(RequestSchema.DELIVER_EVENT, null))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.body().issues()).hasSize(1));
    }
}
