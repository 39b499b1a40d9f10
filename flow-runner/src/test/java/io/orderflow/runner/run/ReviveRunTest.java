package io.orderflow.runner.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.runner.nodes.EndNode;
import io.orderflow.runner.nodes.Node;
import io.orderflow.runner.nodes.NodeCatalogue;
import io.orderflow.runner.nodes.NodeContext;
import io.orderflow.runner.nodes.NodeOutcome;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import io.orderflow.schemas.topics.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Given / when / then scenarios of {@code revive_run}: a run the runner set aside as an incident (a task or a timer it
 * could not handle) is put back as it stood when an operator retries the incident, and the set-aside task or timer is
 * handled again on it.
 */
class ReviveRunTest {

    /** Whether the test nodes below fail; the test "fixes" them by clearing it. */
    private volatile boolean broken = true;

    private final RunnerHarness runner = harness();

    @AfterEach
    void close() {
        runner.close();
    }

    /** Waits for an event, and cannot take it while {@link #broken}. */
    private final class FragileWait implements Node {
        @Override
        public String type() {
            return "test.fragile_wait";
        }

        @Override
        public NodeOutcome execute(NodeContext ctx) {
            return new NodeOutcome.Wait("event", "Wait for the goods", "goods.received", null, null,
                    Duration.ofDays(30), "Waiting for goods.received");
        }

        @Override
        public NodeOutcome.Done resume(NodeContext ctx, String branch, JsonNode payload) {
            if (broken) {
                throw new IllegalStateException("the goods handler is broken");
            }
            return new NodeOutcome.Done(null, payload, "Received the goods");
        }
    }

    /** Sleeps once; when its timer fires while {@link #broken}, throws. */
    private final class FragileSleep implements Node {
        @Override
        public String type() {
            return "test.fragile_sleep";
        }

        @Override
        public NodeOutcome execute(NodeContext ctx) {
            if (ctx.order().has("slept") && broken) {
                throw new IllegalStateException("the wake-up handler is broken");
            }
            ctx.order().put("slept", true);
            return new NodeOutcome.Sleep(1_000, new NodeOutcome.Done(null, Json.object(), "Slept"));
        }
    }

    private RunnerHarness harness() {
        List<Node> nodes = new ArrayList<>(List.of(new FragileWait(), new FragileSleep(), new EndNode()));
        NodeCatalogue standard = NodeCatalogue.standard();
        standard.types().stream().filter(type -> !type.equals("end")).forEach(type -> nodes.add(standard.get(type)));
        return new RunnerHarness(new NodeCatalogue(nodes), new NodeBudget(Duration.ofSeconds(5), 4));
    }

    private static FlowDefinition flowThrough(String type) {
        return Json.MAPPER.readValue("""
                {"id": "revive_test", "name": "Revive test", "orderType": "purchase_request",
                 "nodes": [{"id": "first", "type": "%s", "title": "First"},
                           {"id": "done", "type": "end", "settings": {"outcome": "completed"}}],
                 "edges": [{"id": "e1", "from": "first", "to": "done"}]}""".formatted(type), FlowDefinition.class);
    }

    private static final NodeTask.ResumeNode GOODS = new NodeTask.ResumeNode("ord_r", "ord_r.1", "first", "received",
            Json.object().put("reference", "GR-1"));

    /** A run waiting at {@code first}, whose resume the runner then could not handle: an incident. */
    private RunReport.Incident aRunSetAsideAtItsResume() {
        runner.start("ord_r", RunnerHarness.version(flowThrough("test.fragile_wait"), 1),
                RunnerHarness.order("ord_r", "purchase_request", "{}"));
        assertThat(runner.instance("ord_r").state()).isEqualTo(RunInstance.State.WAITING);
        runner.send(GOODS);
        return runner.reportsOf(RunReport.Incident.class).getLast();
    }

    @Test
    void anIncidentReportNamesTheTaskAndWhereItWasRead() {
        RunReport.Incident incident = aRunSetAsideAtItsResume();

        assertThat(incident.orderId()).isEqualTo("ord_r");
        assertThat(incident.instanceId()).isEqualTo("ord_r.1");
        assertThat(incident.source()).isEqualTo("task ResumeNode");
        assertThat(incident.cause()).endsWith("the goods handler is broken");
        assertThat(Json.MAPPER.treeToValue(incident.record(), NodeTask.class)).isEqualTo(GOODS);
        assertThat(incident.topic()).isEqualTo(Topics.NODE_TASKS.name());
        assertThat(incident.partition()).isZero();
        assertThat(incident.offset()).isNotNull();
        RunInstance setAside = runner.instance("ord_r");
        assertThat(setAside.state()).isEqualTo(RunInstance.State.TERMINATED);
        assertThat(setAside.setAside()).as("the instance as it stood, kept for a retry").isNotNull();
        assertThat(setAside.setAside().get("state").asString()).isEqualTo("WAITING");
    }

    @Test
    void afterAFixReviveRunPutsTheRunBackAndHandlesTheSetAsideTaskAgain() {
        RunReport.Incident incident = aRunSetAsideAtItsResume();
        broken = false;

        runner.send(new NodeTask.ReviveRun("ord_r", incident.instanceId(), incident.record()));

        RunInstance revived = runner.instance("ord_r");
        assertThat(revived.state()).isEqualTo(RunInstance.State.COMPLETE);
        assertThat(revived.setAside()).isNull();
        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.COMPLETED);
        assertThat(runner.lastProgress().nodes()).containsEntry("first", NodeStatus.SUCCEEDED)
                .containsEntry("done", NodeStatus.SUCCEEDED);
        assertThat(revived.outputs().get("first").get("reference").asString()).isEqualTo("GR-1");
        assertThat(runner.eventNames()).containsExactly("order.completed");
        assertThat(runner.reportsOf(RunReport.Incident.class)).hasSize(1);
    }

    @Test
    void aReviveThatFailsAgainIsAnIncidentAgainAndAFixLaterStillResumesTheRunAsItFirstStood() {
        RunReport.Incident incident = aRunSetAsideAtItsResume();

        runner.send(new NodeTask.ReviveRun("ord_r", incident.instanceId(), incident.record()));

        List<RunReport.Incident> incidents = runner.reportsOf(RunReport.Incident.class);
        assertThat(incidents).hasSize(2);
        assertThat(incidents.getLast().source()).isEqualTo("task ResumeNode");
        assertThat(incidents.getLast().cause()).endsWith("the goods handler is broken");
        assertThat(incidents.getLast().record()).isEqualTo(incident.record());
        assertThat(runner.instance("ord_r").state()).isEqualTo(RunInstance.State.TERMINATED);
        assertThat(runner.instance("ord_r").setAside().get("state").asString()).isEqualTo("WAITING");

        broken = false;
        runner.send(new NodeTask.ReviveRun("ord_r", incident.instanceId(), incidents.getLast().record()));

        assertThat(runner.instance("ord_r").state()).isEqualTo(RunInstance.State.COMPLETE);
        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.COMPLETED);
    }

    @Test
    void aSetAsideTimerIsSetAgainByReviveRunAndFires() {
        runner.start("ord_t", RunnerHarness.version(flowThrough("test.fragile_sleep"), 1),
                RunnerHarness.order("ord_t", "purchase_request", "{}"));
        runner.advance(Duration.ofSeconds(2));
        RunReport.Incident incident = runner.reportsOf(RunReport.Incident.class).getLast();
        assertThat(incident.source()).isEqualTo("timer sleep of node first");
        assertThat(incident.record()).as("a timer stays with the instance").isNull();
        assertThat(runner.instance("ord_t").state()).isEqualTo(RunInstance.State.TERMINATED);
        broken = false;

        runner.send(new NodeTask.ReviveRun("ord_t", incident.instanceId(), null));
        runner.advance(Duration.ofSeconds(2));

        assertThat(runner.instance("ord_t").state()).isEqualTo(RunInstance.State.COMPLETE);
        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.COMPLETED);
        assertThat(runner.lastProgress().nodes()).containsEntry("first", NodeStatus.SUCCEEDED);
    }

    @Test
    void aReviveWithNothingToPutBackAndNoTaskIsAnIncidentAgain() {
        runner.send(new NodeTask.ReviveRun("ord_n", "ord_n.1", null));

        assertThat(runner.reportsOf(RunReport.Incident.class)).singleElement().satisfies(incident -> {
            assertThat(incident.orderId()).isEqualTo("ord_n");
            assertThat(incident.cause()).contains("There is no set-aside run instance of ord_n.1 to put back");
        });
    }
}
