package io.orderflow.processor.streams;

import io.orderflow.processor.query.OrderViews;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.query.OrderView;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.util.List;

import static io.orderflow.processor.streams.Fixtures.ORDER;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The view the processor writes is the public {@link OrderView}: read back as that record, as the gateway's socket
 * and chat read it, and written again, it says the same; and it has nothing of the stored state's private fields.
 */
class OrderViewReadBackTest {

    private final AgentDriver agent = new AgentDriver();

    @AfterEach
    void close() {
        agent.close();
    }

    @Test
    void theViewReadAsTheRecordAndWrittenAgainIsTheSame() {
        GoldenStateTest.waitingAtApprovalWithChat(agent);
        byte[] served = OrderViews.write(OrderViews.of(agent.state(ORDER), Fixtures.FLOW),
                OrderViews.flowJson(Fixtures.FLOW));

        OrderView read = Json.MAPPER.readValue(served, OrderView.class);

        // compared as parsed text: a tree made from objects types its numbers differently from a parsed one
        assertThat(Json.MAPPER.readTree(Json.MAPPER.writeValueAsBytes(read))).isEqualTo(Json.MAPPER.readTree(served));
        assertThat(read.status()).isEqualTo(OrderStatus.WAITING);
        assertThat(read.waits()).singleElement().satisfies(wait -> {
            assertThat(wait.approval()).isTrue();
            assertThat(wait.nodeId()).isEqualTo("approve");
        });
        assertThat(read.nodes().get("extract").runs()).singleElement()
                .satisfies(run -> assertThat(run.durationMs()).isEqualTo(1_000));
        assertThat(read.chat()).hasSize(3);
        assertThat(read.flow()).isEqualTo(Fixtures.FLOW);
        assertThat(read.ended()).isFalse();
    }

    @Test
    void noPrivateFieldOfTheStoredStateIsShown() {
        GoldenStateTest.waitingAtApprovalWithChat(agent);
        JsonNode stored = Json.MAPPER.readTree(agent.<byte[]>store(OrderAgent.ORDERS).get(ORDER));
        JsonNode view = Json.MAPPER.readTree(OrderViews.write(OrderViews.of(agent.state(ORDER), Fixtures.FLOW)));

        for (String field : List.of("seq", "fingerprint", "rollbackPolls", "createdAt", "updatedAt")) {
            assertThat(stored.has(field)).as("stored %s", field).isTrue();
            assertThat(view.has(field)).as("shown %s", field).isFalse();
        }
        // the version is shown: a client reads it to wait for its own change and to name it in If-Match
        assertThat(view.get("version")).isEqualTo(stored.get("version"));
        assertThat(stored.get("timeline").findValues("key")).as("the stored timeline has keyed entries").isNotEmpty();
        assertThat(view.get("timeline").findValues("key")).isEmpty();
    }
}
