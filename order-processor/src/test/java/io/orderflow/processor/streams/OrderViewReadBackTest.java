package io.orderflow.processor.streams;

import io.orderflow.processor.query.OrderViews;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.query.OrderView;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.orderflow.processor.streams.Fixtures.ORDER;
import static io.orderflow.processor.streams.Fixtures.start;
import static io.orderflow.processor.streams.Reports.approvalWait;
import static io.orderflow.processor.streams.Reports.detail;
import static io.orderflow.processor.streams.Reports.ended;
import static io.orderflow.processor.streams.Reports.progress;
import static io.orderflow.processor.streams.Reports.started;
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
        waitingAtApprovalWithChat();
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
        waitingAtApprovalWithChat();
        JsonNode stored = Json.MAPPER.readTree(agent.<byte[]>store(OrderAgent.ORDERS).get(ORDER));
        JsonNode view = Json.MAPPER.readTree(OrderViews.write(OrderViews.of(agent.state(ORDER), Fixtures.FLOW)));

        for (String field : List.of("seq", "fingerprint", "rollbackPolls", "createdAt", "updatedAt", "version")) {
            assertThat(stored.has(field)).as("stored %s", field).isTrue();
            assertThat(view.has(field)).as("shown %s", field).isFalse();
        }
        assertThat(stored.get("timeline").findValues("key")).as("the stored timeline has keyed entries").isNotEmpty();
        assertThat(view.get("timeline").findValues("key")).isEmpty();
    }

    private void waitingAtApprovalWithChat() {
        agent.command(start(ORDER));
        agent.report(progress(1, 1, OrderStatus.WAITING,
                Map.of("extract", NodeStatus.SUCCEEDED, "approve", NodeStatus.WAITING),
                Map.of("e1", EdgeState.ACTIVE), Json.object().put("seed", 1)));
        agent.report(detail("extract", started(agent.now() - 2_000)));
        agent.report(detail("extract", ended(agent.now() - 1_000)));
        agent.report(approvalWait(Duration.ofDays(2).toMillis(), agent.now()));
        agent.command(new OrderCommand.AppendChat(ORDER, List.of(ChatTest.user("msg_1", "approve it"),
                ChatTest.proposal("msg_2"), ChatTest.assistant("msg_3", "Confirm the approval on the page."))));
    }
}
