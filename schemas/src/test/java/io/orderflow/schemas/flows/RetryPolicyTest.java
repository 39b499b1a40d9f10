package io.orderflow.schemas.flows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.schemas.json.Json;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    @Test
    void a_flow_file_may_leave_out_any_field_and_gets_the_defaults() {
        assertThat(Json.read("{}", RetryPolicy.class)).isEqualTo(new RetryPolicy(3, 1000, 2));
        assertThat(Json.read("{\"maxAttempts\": 5}", RetryPolicy.class)).isEqualTo(new RetryPolicy(5, 1000, 2));
        assertThat(Json.read("{\"maxAttempts\": 2, \"initialBackoffMs\": 250, \"multiplier\": 3}", RetryPolicy.class))
                .isEqualTo(new RetryPolicy(2, 250, 3));
    }

    @Test
    void nonsense_is_refused_when_the_file_is_read() {
        assertThatThrownBy(() -> Json.read("{\"maxAttempts\": 0}", RetryPolicy.class))
                .hasMessageContaining("maxAttempts >= 1");
        assertThatThrownBy(() -> Json.read("{\"multiplier\": 0.5}", RetryPolicy.class))
                .hasMessageContaining("multiplier >= 1");
    }

    @Test
    void backoff_grows_by_the_multiplier() {
        RetryPolicy policy = new RetryPolicy(4, 1000, 2);
        assertThat(policy.backoffAfter(1)).isEqualTo(1000);
        assertThat(policy.backoffAfter(2)).isEqualTo(2000);
        assertThat(policy.backoffAfter(3)).isEqualTo(4000);
    }
}
