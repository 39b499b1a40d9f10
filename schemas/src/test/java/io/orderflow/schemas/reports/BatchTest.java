package io.orderflow.schemas.reports;

import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.NodePatch;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How one runner task's reports travel: as one record, without the snapshots a later one supersedes. */
class BatchTest {

    private static RunReport.Progress snapshot(String instanceId, long seq, OrderStatus status) {
        return new RunReport.Progress("ord_1", instanceId, instanceId.endsWith(".1") ? 1 : 2, seq, status, null,
                Map.of("pricing", NodeStatus.SUCCEEDED), Map.of("e1", EdgeState.ACTIVE),
                Json.object().put("subtotal", 20), Json.object(), 1_000 + seq);
    }

    private static RunReport.NodeDetail detail(String nodeId) {
        return new RunReport.NodeDetail("ord_1", "ord_1.1", nodeId,
                new NodePatch(NodeStatus.SUCCEEDED, null, null, "done", null, null, null), null);
    }

    @Test
    void noneOrOneReportGoesAsItIs() {
        assertThat(RunReport.Batch.of(List.of())).isEmpty();
        RunReport.Progress only = snapshot("ord_1.1", 1, OrderStatus.RUNNING);
        assertThat(RunReport.Batch.of(List.of(only))).containsExactly(only);
    }

    @Test
    void severalGoAsOneBatchInTheirOrderAndOnlyTheLastSnapshotOfAnInstanceKeepsItsPlan() {
        RunReport.Progress running = snapshot("ord_1.1", 1, OrderStatus.RUNNING);
        RunReport.Progress completed = snapshot("ord_1.1", 2, OrderStatus.COMPLETED);

        List<RunReport> sent = RunReport.Batch.of(List.of(running, detail("pricing"), detail("tax"), completed));

        assertThat(sent).singleElement().isInstanceOf(RunReport.Batch.class);
        List<RunReport> reports = sent.getFirst().unpacked();
        assertThat(reports).hasSize(4);
        assertThat(reports.get(0)).as("superseded: status, sequence and time only").isEqualTo(
                new RunReport.Progress("ord_1", "ord_1.1", 1, 1, OrderStatus.RUNNING, null, null, null, null, null,
                        1_001));
        assertThat(reports.subList(1, 4)).containsExactly(detail("pricing"), detail("tax"), completed);
    }

    @Test
    void aSnapshotOfAnotherInstanceDoesNotSupersede() {
        RunReport.Progress old = snapshot("ord_1.1", 9, OrderStatus.RUNNING);
        RunReport.Progress next = snapshot("ord_1.2", 1, OrderStatus.RUNNING);

        assertThat(RunReport.Batch.of(List.of(old, next)).getFirst().unpacked()).containsExactly(old, next);
    }

    @Test
    void aBatchTravelsAsJsonAndBack() {
        List<RunReport> sent = RunReport.Batch.of(List.of(snapshot("ord_1.1", 1, OrderStatus.RUNNING),
                detail("pricing"), snapshot("ord_1.1", 2, OrderStatus.COMPLETED)));

        assertThat(Json.MAPPER.readValue(Json.write(sent.getFirst()), RunReport.class)).isEqualTo(sent.getFirst());
    }

    @Test
    void batchesDoNotNest() {
        RunReport.Batch inner = new RunReport.Batch("ord_1", "ord_1.1", List.of(detail("pricing")));

        assertThatThrownBy(() -> new RunReport.Batch("ord_1", "ord_1.1", List.of(inner)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
