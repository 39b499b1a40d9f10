package io.orderflow.gateway.orders;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.gateway.commands.StartRequest;
import io.orderflow.schemas.json.Json;
import org.junit.jupiter.api.Test;

class StartRequestTest {

    private static StartRequest parse(String json) {
        return StartRequest.of(Json.MAPPER.readTree(json));
    }

    @Test
    void the_fingerprint_ignores_property_order_and_number_spelling() {
        StartRequest a = parse("""
                {"flowId": "f", "input": {"type": "reorder", "lines": [{"sku": "A", "qty": 2, "unitPrice": 1.5}]},
                 "vars": {"x": 1, "y": {"b": 2, "a": 1}}}""");
        StartRequest b = parse("""
                {"vars": {"y": {"a": 1, "b": 2}, "x": 1.0}, "input": {"lines": [{"unitPrice": 1.50, "qty": 2, "sku": "A"}],
                 "type": "reorder"}, "flowId": "f"}""");
        assertThat(a.fingerprint()).isEqualTo(b.fingerprint()).matches("[0-9a-f]{64}");
    }

    @Test
    void the_fingerprint_binds_flow_version_input_and_vars() {
        String base = parse("{\"flowId\": \"f\", \"input\": {\"type\": \"reorder\"}}").fingerprint();
        assertThat(parse("{\"flowId\": \"g\", \"input\": {\"type\": \"reorder\"}}").fingerprint()).isNotEqualTo(base);
        assertThat(parse("{\"flowId\": \"f\", \"version\": 1, \"input\": {\"type\": \"reorder\"}}").fingerprint())
                .isNotEqualTo(base);
        assertThat(parse("{\"flowId\": \"f\", \"input\": {\"type\": \"b2b_order\"}}").fingerprint()).isNotEqualTo(base);
        assertThat(parse("{\"flowId\": \"f\", \"input\": {\"type\": \"reorder\"}, \"vars\": {\"a\": 1}}").fingerprint())
                .isNotEqualTo(base);
    }

    @Test
    void currency_defaults_to_usd_and_vars_to_an_empty_object() {
        StartRequest request = parse("{\"flowId\": \"f\", \"input\": {\"type\": \"reorder\"}}");
        assertThat(request.input().get("currency").asString()).isEqualTo("USD");
        assertThat(request.vars().isEmpty()).isTrue();
        assertThat(request.version()).isNull();
        // an explicit USD is the same request as the default
        assertThat(parse("{\"flowId\": \"f\", \"input\": {\"type\": \"reorder\", \"currency\": \"USD\"}, \"vars\": {}}")
                .fingerprint()).isEqualTo(request.fingerprint());
    }

    @Test
    void order_ids_derive_from_the_key_or_are_random() {
        assertThat(OrderIds.fromIdempotencyKey("k1")).isEqualTo(OrderIds.fromIdempotencyKey("k1"))
                .isNotEqualTo(OrderIds.fromIdempotencyKey("k2")).matches("ord_[0-9a-f]{24}");
        assertThat(OrderIds.random()).isNotEqualTo(OrderIds.random()).matches("ord_[0-9a-f]{24}");
        assertThat(OrderIds.isOrderId("ord_abc")).isTrue();
        assertThat(OrderIds.isOrderId("abc")).isFalse();
        assertThat(OrderIds.isOrderId("ord_a/b")).isFalse();
    }
}
