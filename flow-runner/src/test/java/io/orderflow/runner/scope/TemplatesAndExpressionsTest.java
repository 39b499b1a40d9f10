package io.orderflow.runner.scope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TemplatesAndExpressionsTest {

    private final Map<String, Object> scope = Map.of(
            "order", Map.of("id", "ord_7", "total", 1250.5),
            "vars", Map.of("renewals", 3),
            "nodes", Map.of(), "input", Map.of());

    @Test
    void rendersTitles() {
        assertThat(Templates.render("Approve order {{order.id}}", scope)).isEqualTo("Approve order ord_7");
        assertThat(Templates.render("Missing {{order.nope}}!", scope)).isEqualTo("Missing !");
    }

    @Test
    void evaluatesConditionsOverTheScope() {
        assertThat(Expressions.test("order.total > 1000", scope)).isTrue();
        assertThat(Expressions.test("vars.renewals < (vars['term'] ?: 12)", scope)).isTrue();
        assertThat(Expressions.test("order.id == 'ord_8'", scope)).isFalse();
    }

    @Test
    void refusesToReachTheJvm() {
        assertThatThrownBy(() -> Expressions.test("T(java.lang.System).exit(1) == null", scope))
                .isInstanceOf(RuntimeException.class);
        assertThatThrownBy(() -> Expressions.test("new java.io.File('/').delete()", scope))
                .isInstanceOf(RuntimeException.class);
    }
}
