package io.orderflow.runner.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.runner.nodes.EndNode;
import io.orderflow.runner.nodes.Node;
import io.orderflow.runner.nodes.NodeCatalogue;
import io.orderflow.runner.nodes.NodeContext;
import io.orderflow.runner.nodes.NodeOutcome;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.reports.RunReport;
import io.orderflow.schemas.tasks.NodeTask;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Given / when / then scenarios of {@code migrate_run} on the runner topology: a run waiting at a node goes on with the
 * new version of its flow, its nodes and outputs renamed through the mapping, so the nodes after the wait run as the
 * new version defines them; a repeated migration changes nothing; a migration of a run that is not waiting at a node
 * the migration keeps is an incident.
 */
class MigrateRunTest {

    private final RunnerHarness runner = harness();

    @AfterEach
    void close() {
        runner.close();
    }

    /** Writes its {@code mark} setting (a template) as its output. */
    private static final class Mark implements Node {
        @Override
        public String type() {
            return "test.mark";
        }

        @Override
        public NodeOutcome execute(NodeContext ctx) {
            String mark = ctx.render(ctx.setting("mark", ""));
            return new NodeOutcome.Done(null, Json.object().put("mark", mark), "Marked: " + mark);
        }
    }

    /** Waits for {@code goods.received}; its output is the event's payload. */
    private static final class GoodsWait implements Node {
        @Override
        public String type() {
            return "test.goods_wait";
        }

        @Override
        public NodeOutcome execute(NodeContext ctx) {
            return new NodeOutcome.Wait("event", "Wait for the goods", "goods.received", null, null,
                    Duration.ofDays(30), "Waiting for goods.received");
        }

        @Override
        public NodeOutcome.Done resume(NodeContext ctx, String branch, JsonNode payload) {
            return new NodeOutcome.Done(null, payload, "Received the goods");
        }
    }

    /** Sleeps a second, then is done. */
    private static final class Nap implements Node {
        @Override
        public String type() {
            return "test.nap";
        }

        @Override
        public NodeOutcome execute(NodeContext ctx) {
            return new NodeOutcome.Sleep(1_000, new NodeOutcome.Done(null, Json.object(), "Napped"));
        }
    }

    private static RunnerHarness harness() {
        List<Node> nodes = new ArrayList<>(List.of(new Mark(), new GoodsWait(), new Nap(), new EndNode()));
        NodeCatalogue standard = NodeCatalogue.standard();
        standard.types().stream().filter(type -> !type.equals("end")).forEach(type -> nodes.add(standard.get(type)));
        return new RunnerHarness(new NodeCatalogue(nodes), new NodeBudget(Duration.ofSeconds(5), 4));
    }

    /**
     * intro (mark) → {@code waitNode} (wait) → after (mark) → done; {@code suffix} is added to the ids of intro, the
     * wait and after, and {@code afterMark} is what the last mark writes.
     */
    private static FlowVersion flow(int version, String suffix, String waitType, String afterMark) {
        FlowDefinition definition = Json.MAPPER.readValue("""
                {"id": "migrate_test", "name": "Migrate test", "orderType": "purchase_request",
                 "nodes": [{"id": "intro%1$s", "type": "test.mark", "title": "Intro", "settings": {"mark": "v1 intro"}},
                           {"id": "wait%1$s", "type": "%2$s", "title": "Wait"},
                           {"id": "after%1$s", "type": "test.mark", "title": "After", "settings": {"mark": "%3$s"}},
                           {"id": "done", "type": "end", "settings": {"outcome": "completed"}}],
                 "edges": [{"id": "e1", "from": "intro%1$s", "to": "wait%1$s"},
                           {"id": "e2", "from": "wait%1$s", "to": "after%1$s"},
                           {"id": "e3", "from": "after%1$s", "to": "done"}]}"""
                .formatted(suffix, waitType, afterMark), FlowDefinition.class);
        return RunnerHarness.version(definition, version);
    }

    private static final FlowVersion V1 = flow(1, "", "test.goods_wait", "v1 after");
    /** Every node but the end renamed, and the node after the wait writes what version 2 says, from intro's output. */
    private static final FlowVersion V2 = flow(2, "_v2", "test.goods_wait", "v2 after, intro said {{nodes.intro_v2.mark}}");
    private static final Map<String, String> RENAMED = Map.of("intro", "intro_v2", "wait", "wait_v2",
            "after", "after_v2", "done", "done");

    private void startWaiting(String orderId, FlowVersion flow) {
        runner.start(orderId, flow, RunnerHarness.order(orderId, "purchase_request", "{}"));
    }

    @Test
    void aWaitingRunRenamedOntoTheNewVersionRunsTheRenamedNodesAfterTheWaitAsTheNewVersionDefinesThem() {
        startWaiting("ord_m", V1);
        assertThat(runner.instance("ord_m").waitingNode()).isEqualTo("wait");

        runner.send(new NodeTask.MigrateRun("ord_m", "ord_m.1", V2, RENAMED));

        RunInstance migrated = runner.instance("ord_m");
        assertThat(migrated.state()).isEqualTo(RunInstance.State.WAITING);
        assertThat(migrated.waitingNode()).isEqualTo("wait_v2");
        assertThat(migrated.flow().version()).isEqualTo(2);
        assertThat(migrated.nodes()).containsOnlyKeys("intro_v2", "wait_v2", "after_v2", "done")
                .containsEntry("intro_v2", NodeStatus.SUCCEEDED);
        assertThat(runner.reportsOf(RunReport.Incident.class)).isEmpty();

        runner.send(new NodeTask.ResumeNode("ord_m", "ord_m.1", "wait_v2", "received",
                Json.object().put("reference", "GR-7")));

        RunInstance done = runner.instance("ord_m");
        assertThat(done.state()).isEqualTo(RunInstance.State.COMPLETE);
        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.COMPLETED);
        assertThat(runner.lastProgress().nodes()).containsEntry("wait_v2", NodeStatus.SUCCEEDED)
                .containsEntry("after_v2", NodeStatus.SUCCEEDED).doesNotContainKeys("wait", "after");
        assertThat(done.outputs().get("after_v2").get("mark").asString())
                .isEqualTo("v2 after, intro said v1 intro");
        assertThat(done.outputs().get("wait_v2").get("reference").asString()).isEqualTo("GR-7");
        assertThat(runner.reportsOf(RunReport.NodeDetail.class).stream().map(RunReport.NodeDetail::nodeId))
                .contains("after_v2").doesNotContain("after");
    }

    @Test
    void aResumeOfTheOldNodeIdAfterTheMigrationIsIgnored() {
        startWaiting("ord_o", V1);
        runner.send(new NodeTask.MigrateRun("ord_o", "ord_o.1", V2, RENAMED));

        runner.send(new NodeTask.ResumeNode("ord_o", "ord_o.1", "wait", "received", Json.object()));

        assertThat(runner.instance("ord_o").state()).isEqualTo(RunInstance.State.WAITING);
        assertThat(runner.instance("ord_o").waitingNode()).isEqualTo("wait_v2");
    }

    @Test
    void aRepeatedMigrateRunIsIgnored() {
        startWaiting("ord_r", V1);
        runner.send(new NodeTask.MigrateRun("ord_r", "ord_r.1", V2, RENAMED));
        String before = Json.write(Json.tree(runner.instance("ord_r")));
        int reports = runner.allReports.size();

        // sent again, as after a restart of the processor; its mapping read against version 2 would drop every node
        runner.send(new NodeTask.MigrateRun("ord_r", "ord_r.1", V2, RENAMED));

        assertThat(Json.write(Json.tree(runner.instance("ord_r")))).isEqualTo(before);
        assertThat(runner.allReports).hasSize(reports);
        runner.send(new NodeTask.ResumeNode("ord_r", "ord_r.1", "wait_v2", "received", Json.object()));
        assertThat(runner.instance("ord_r").state()).isEqualTo(RunInstance.State.COMPLETE);
    }

    @Test
    void aMigrateRunForAnotherInstanceIsIgnored() {
        startWaiting("ord_i", V1);

        runner.send(new NodeTask.MigrateRun("ord_i", "ord_i.0", V2, RENAMED));

        assertThat(runner.instance("ord_i").flow().version()).isEqualTo(1);
        assertThat(runner.instance("ord_i").waitingNode()).isEqualTo("wait");
        assertThat(runner.reportsOf(RunReport.Incident.class)).isEmpty();
    }

    @Test
    void aMigrateRunThatDropsTheNodeTheRunWaitsAtRaisesTheIncident() {
        startWaiting("ord_d", V1);

        runner.send(new NodeTask.MigrateRun("ord_d", "ord_d.1", V2,
                Map.of("intro", "intro_v2", "after", "after_v2", "done", "done")));

        assertThat(runner.reportsOf(RunReport.Incident.class)).singleElement().satisfies(incident -> {
            assertThat(incident.source()).isEqualTo("task MigrateRun");
            assertThat(incident.cause()).isEqualTo("The run is not waiting at a node the migration to version 2 keeps");
            assertThat(incident.instanceId()).isEqualTo("ord_d.1");
        });
        RunInstance setAside = runner.instance("ord_d");
        assertThat(setAside.state()).isEqualTo(RunInstance.State.TERMINATED);
        assertThat(setAside.flow().version()).as("nothing renamed").isEqualTo(1);
    }

    @Test
    void aMigrateRunOfARunThatIsNotWaitingRaisesTheIncident() {
        runner.start("ord_s", flow(1, "", "test.nap", "v1 after"),
                RunnerHarness.order("ord_s", "purchase_request", "{}"));
        assertThat(runner.instance("ord_s").state()).isEqualTo(RunInstance.State.SLEEPING);

        runner.send(new NodeTask.MigrateRun("ord_s", "ord_s.1", flow(2, "_v2", "test.nap", "v2 after"), RENAMED));

        assertThat(runner.reportsOf(RunReport.Incident.class)).singleElement().satisfies(incident -> {
            assertThat(incident.source()).isEqualTo("task MigrateRun");
            assertThat(incident.cause()).isEqualTo("The run is not waiting at a node the migration to version 2 keeps");
        });
        assertThat(runner.instance("ord_s").state()).isEqualTo(RunInstance.State.TERMINATED);
    }
}
