package io.orderflow.runner.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.json.JsonSerde;
import io.orderflow.schemas.model.NodeStatus;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The run-instances store's format: instances as the runner wrote them when {@link RunInstance} was a class of public
 * fields (a waiting b2b order holding stock, a reorder asleep, a storefront order retrying, errored after its
 * rollback, completed, and an order set aside as an incident) still read, and are written back field for field.
 */
class RunInstanceFormatTest {

    private static final JsonSerde<RunInstance> SERDE = JsonSerde.of(RunInstance.class);

    @ParameterizedTest
    @ValueSource(strings = {"waiting", "set-aside", "sleeping", "retrying", "errored", "completed"})
    void aStoredInstanceReadsAndIsWrittenBackAsItWas(String name) throws IOException {
        byte[] stored = resource(name);

        RunInstance instance = SERDE.deserializer().deserialize("run-instances", stored);
        byte[] written = SERDE.serializer().serialize("run-instances", instance);

        assertThat(Json.MAPPER.readTree(written)).isEqualTo(Json.MAPPER.readTree(stored));
    }

    @Test
    void theFieldsAreReadIntoTheirComponents() throws IOException {
        RunInstance waiting = SERDE.deserializer().deserialize("run-instances", resource("waiting"));

        assertThat(waiting.state()).isEqualTo(RunInstance.State.WAITING);
        assertThat(waiting.waitingNode()).isEqualTo("await_payment");
        assertThat(waiting.nodes()).containsEntry("reserve", NodeStatus.SUCCEEDED);
        assertThat(waiting.holds()).singleElement().satisfies(hold -> assertThat(hold.open()).isTrue());
        assertThat(waiting.completed()).endsWith("invoice");

        RunInstance setAside = SERDE.deserializer().deserialize("run-instances", resource("set-aside"));
        assertThat(setAside.setAside().get("state").asString()).isEqualTo("WAITING");
        assertThat(Json.MAPPER.treeToValue(setAside.setAside(), RunInstance.class)).as("the instance as it stood")
                .isEqualTo(waiting);

        RunInstance sleeping = SERDE.deserializer().deserialize("run-instances", resource("sleeping"));
        assertThat(sleeping.timer().kind()).isEqualTo("sleep");
    }

    @Test
    void theDocumentTextIsNotStored() throws IOException {
        RunInstance waiting = SERDE.deserializer().deserialize("run-instances", resource("waiting"));

        JsonNode written = Json.MAPPER.readTree(SERDE.serializer().serialize("run-instances",
                waiting.withDocumentText("3 x LAPTOP-14")));

        assertThat(written.has("documentText")).isFalse();
        assertThat(written).isEqualTo(Json.MAPPER.readTree(resource("waiting")));
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = RunInstanceFormatTest.class.getResourceAsStream("/run-instances/" + name + ".json")) {
            return in.readAllBytes();
        }
    }
}
