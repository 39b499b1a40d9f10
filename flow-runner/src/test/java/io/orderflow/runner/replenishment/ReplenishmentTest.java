package io.orderflow.runner.replenishment;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.runner.connectors.MockInventory;
import io.orderflow.runner.flows.FlowFiles;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.flows.FlowRecord;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.model.OrderType;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplenishmentTest {

    private final FlowRecord reorder = new FlowRecord("reorder", "Reorder", "", OrderType.REORDER, 1, 0,
            List.of(new FlowVersion("reorder", 1, 0, FlowFiles.builtIn("reorder"))));

    @Test
    void startsOneReorderForEverythingBelowItsReorderPoint() {
        var envelope = new Replenishment(new MockInventory()).plan(LocalDate.of(2026, 3, 2), reorder, 42).orElseThrow();

        var start = (OrderCommand.StartOrder) envelope.command();
        assertThat(start.orderId()).isEqualTo("ord_reorder_20260302");
        assertThat(start.flow().version()).isEqualTo(1);
        assertThat(start.input().get("type").asString()).isEqualTo("reorder");
        assertThat(start.input().get("lines").findValuesAsString("sku"))
                .containsExactly("WIDGET-2", "PAPER-A4", "COFFEE-1KG");
        assertThat(start.idempotent()).isTrue();
    }

    @Test
    void theSameDayGivesTheSameOrderAndFingerprint() {
        var replenishment = new Replenishment(new MockInventory());
        var first = (OrderCommand.StartOrder) replenishment.plan(LocalDate.of(2026, 3, 2), reorder, 1).orElseThrow().command();
        var again = (OrderCommand.StartOrder) replenishment.plan(LocalDate.of(2026, 3, 2), reorder, 2).orElseThrow().command();

        assertThat(again.orderId()).isEqualTo(first.orderId());
        assertThat(again.fingerprint()).isEqualTo(first.fingerprint());
    }

    @Test
    void nothingWithoutAReorderFlow() {
        assertThat(new Replenishment(new MockInventory()).plan(LocalDate.of(2026, 3, 2), null, 1)).isEmpty();
    }
}
