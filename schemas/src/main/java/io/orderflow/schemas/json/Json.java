package io.orderflow.schemas.json;

import com.fasterxml.jackson.annotation.JsonInclude;
import tools.jackson.core.StreamWriteFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.cfg.JsonNodeFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The one JSON mapper of the contract. Every topic value and every stored record is written with it,
 * so the golden JSON tests pin the wire format of all services at once.
 */
public final class Json {

    /**
     * Shared, immutable and thread-safe (Jackson 3 mappers are immutable once built).
     *
     * <p>Money is decimal: every JSON number with a fraction is read as a {@link java.math.BigDecimal}, trees
     * included, with its scale as written, so an amount written as {@code 165.00} reads back as {@code 165.00} (not
     * the double {@code 165.0}) after any store or topic round trip; trailing zeros are kept, and a decimal is written
     * plain ({@code 1000}, never {@code 1E+3}).
     */
    public static final JsonMapper MAPPER = JsonMapper.builder()
            .changeDefaultPropertyInclusion(incl -> incl.withValueInclusion(JsonInclude.Include.NON_NULL))
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
            .enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
            .addModule(new SpreadingCreators())
            .build();

    private Json() {
    }

    public static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }

    public static String write(Object value) {
        return MAPPER.writeValueAsString(value);
    }

    public static <T> T read(String json, Class<T> type) {
        return MAPPER.readValue(json, type);
    }

    public static JsonNode tree(Object value) {
        return MAPPER.valueToTree(value);
    }
}
