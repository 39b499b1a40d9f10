package io.orderflow.processor.streams;

import io.orderflow.processor.order.OrderState;
import io.orderflow.processor.order.StoredFlow;
import io.orderflow.processor.query.OrderViews;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
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
import static org.assertj.core.api.Assertions.fail;

/** Golden JSON of the stored state and of the API view: a change to either format is visible here. */
class GoldenStateTest {

    private final AgentDriver agent = new AgentDriver();

    @AfterEach
    void close() {
        agent.close();
    }

    @Test
    void storedStateAndApiView() throws IOException {
        waitingAtApprovalWithChat(agent);

        byte[] stored = agent.<byte[]>store(OrderAgent.ORDERS).get(ORDER); // as the changelog gets them
        // the pinned flow is stored as a reference with node ids and types; the view adds the whole graph
        assertGolden("order-state.json", Json.MAPPER.readTree(stored));
        assertThat(StoredFlow.isSlim(agent.state(ORDER).flow())).isTrue();
        JsonNode view = Json.MAPPER.readTree(OrderViews.write(OrderViews.of(agent.state(ORDER), Fixtures.FLOW),
                OrderViews.flowJson(Fixtures.FLOW)));
        assertGolden("order-view.json", view);
        assertThat(view.has("seq")).isFalse();
        assertThat(view.has("fingerprint")).isFalse();
    }

    /** A state stored before the flow was kept as a reference (with the whole graph) still loads and shows the same. */
    @Test
    void stateStoredWithTheWholeGraphLoadsAndShowsTheSameView() throws IOException {
        byte[] old;
        try (InputStream in = GoldenStateTest.class.getResourceAsStream("/golden/order-state-with-graph.json")) {
            old = in.readAllBytes();
        }
        OrderState state = OrderAgent.STATES.deserializer().deserialize(OrderAgent.ORDERS, old);
        assertThat(StoredFlow.isSlim(state.flow())).isFalse();
        assertThat(state.flow()).isEqualTo(Fixtures.FLOW);
        assertThat(state.nodeType("sleep")).isEqualTo("control.wait");
        assertGolden("order-view.json", Json.MAPPER.readTree(OrderViews.write(OrderViews.of(state, state.flow()))));
    }

    /**
     * The contract lists the live state's {@code reason}, a node's "status, runs, summary, output, error, branches,
     * startedAt, endedAt" and an open wait's "nodeId, kind, title, event, assignee, amount, deadline, since": each is
     * in the view, null when empty.
     */
    @Test
    void theContractsFieldsAreShownWhenEmpty() {
        agent.command(start(ORDER));
        agent.report(new io.orderflow.schemas.reports.RunReport.WaitRequested(ORDER, ORDER + ".1", 1,
                new io.orderflow.schemas.model.WaitRequest("approve", "approval", "Approve", "approval", null, null,
                        Duration.ofDays(1).toMillis(), agent.now())));

        JsonNode view = Json.MAPPER.readTree(OrderViews.write(OrderViews.of(agent.state(ORDER), Fixtures.FLOW),
                OrderViews.flowJson(Fixtures.FLOW)));

        assertThat(view.has("reason")).isTrue();
        assertThat(view.get("reason").isNull()).isTrue();
        JsonNode pending = view.get("nodes").get("end");
        for (String field : List.of("status", "runs", "summary", "output", "error", "branches", "startedAt",
                "endedAt")) {
            assertThat(pending.has(field)).as("node field %s", field).isTrue();
        }
        JsonNode wait = view.get("waits").get(0);
        for (String field : List.of("nodeId", "kind", "title", "event", "assignee", "amount", "deadline", "since")) {
            assertThat(wait.has(field)).as("wait field %s", field).isTrue();
        }
        assertThat(wait.get("assignee").isNull()).isTrue();
        // and the index row's "customerId" and "total", before the run has priced the order
        JsonNode row = Json.tree(agent.indexRow(ORDER));
        assertThat(row.has("total")).isTrue();
        assertThat(row.get("total").isNull()).isTrue();
        assertThat(row.has("customerId")).isTrue();
    }

    /** The reference keeps what the agent needs of the graph: each node's type. */
    @Test
    void slimFlowKeepsNodeTypes() {
        agent.command(start(ORDER));
        OrderState state = agent.state(ORDER);
        assertThat(state.flow().flowId()).isEqualTo(Fixtures.FLOW.flowId());
        assertThat(state.flow().version()).isEqualTo(Fixtures.FLOW.version());
        assertThat(state.nodeType("sleep")).isEqualTo("control.wait");
        assertThat(state.nodeType("end")).isEqualTo("end");
        assertThat(state.flow().graph().edges()).isNull();
    }

    private static void assertGolden(String name, JsonNode actual) throws IOException {
        try (InputStream in = GoldenStateTest.class.getResourceAsStream("/golden/" + name)) {
            if (in == null) {
                Path file = Path.of("src/test/resources/golden", name);
                Files.createDirectories(file.getParent());
                Files.writeString(file, Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(actual) + "\n");
                fail("Golden file " + name + " was missing and has been written; review it and run again");
            }
            assertThat(Json.MAPPER.readTree(Json.write(actual))).isEqualTo(Json.MAPPER.readTree(in));
        }
    }

    /** The golden order: extract done, waiting at its approval for two days, with a chat and a proposal in it. */
    static void waitingAtApprovalWithChat(AgentDriver agent) {
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
