package io.orderflow.schemas.json;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.exc.ValueInstantiationException;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Records read through the contract's mapper are built by one spread handle, with Jackson's own results. */
public class SpreadingCreatorsTest {

    /** Public, so the spread handle may call it; it notes who called it. */
    public record Line(String sku, int quantity, long cents, boolean gift, Map<String, Integer> tags,
                       List<String> notes, StackTraceElement[] calledFrom) {

        public Line {
            if (quantity < 0) {
                throw new IllegalArgumentException("quantity must not be negative");
            }
            calledFrom = new Throwable().getStackTrace();
        }
    }

    private static final JsonMapper PLAIN = JsonMapper.builder().build();

    @Test
    void aRecordIsBuiltThroughTheSpreadHandleNotThroughInvokeWithArguments() {
        Line line = Json.read("{\"sku\":\"A\",\"quantity\":2,\"cents\":1,\"gift\":false}", Line.class);

        assertThat(line.calledFrom()).extracting(StackTraceElement::getClassName)
                .contains(SpreadingCreators.Spreading.class.getName());
        assertThat(line.calledFrom()).extracting(StackTraceElement::getMethodName)
                .doesNotContain("invokeWithArguments");
    }

    @Test
    void itReadsEveryKindOfComponentAsJacksonDoes() {
        String json = "{\"sku\":\"A-1\",\"quantity\":3,\"cents\":12345678901,\"gift\":true,"
                + "\"tags\":{\"x\":1},\"notes\":[\"n1\",\"n2\"]}";

        Line spread = Json.read(json, Line.class);
        Line plain = PLAIN.readValue(json, Line.class);

        assertThat(spread).usingRecursiveComparison().ignoringFields("calledFrom").isEqualTo(plain);
        assertThat(spread.cents()).isEqualTo(12345678901L);
        assertThat(spread.tags()).containsEntry("x", 1);
    }

    @Test
    void missingComponentsAreTreatedAsJacksonTreatsThem() {
        String noObjects = "{\"sku\":\"B\",\"quantity\":0,\"cents\":0,\"gift\":false}";
        String noPrimitive = "{\"sku\":\"B\",\"quantity\":1,\"gift\":false}";

        Line spread = Json.read(noObjects, Line.class);

        assertThat(spread.tags()).isNull();
        assertThat(spread.notes()).isNull();
        Throwable plain = org.assertj.core.api.Assertions.catchThrowable(() -> PLAIN.readValue(noPrimitive, Line.class));
        assertThatThrownBy(() -> Json.read(noPrimitive, Line.class))
                .isInstanceOf(plain.getClass())
                .hasMessage(plain.getMessage());
    }

    @Test
    void aConstructorThatRefusesIsReportedAsJacksonReportsIt() {
        String json = "{\"sku\":\"C\",\"quantity\":-1,\"cents\":0,\"gift\":false}";

        Throwable plain = org.assertj.core.api.Assertions.catchThrowable(() -> PLAIN.readValue(json, Line.class));

        assertThatThrownBy(() -> Json.read(json, Line.class))
                .isInstanceOf(ValueInstantiationException.class)
                .hasMessage(plain.getMessage())
                .hasRootCauseInstanceOf(IllegalArgumentException.class)
                .rootCause().hasMessage("quantity must not be negative");
    }
}
