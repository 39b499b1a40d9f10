package io.orderflow.runner.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.kafka.tracing.TraceHeaders;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.tasks.NodeTask;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * The runner passes the trace context of the task it handles on to every report, event and task it causes, and to
 * the timers it sets: a retry fires with the trace context of the task that scheduled it.
 */
class RunTraceContextTest {

    private static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    private final RunnerHarness runner = new RunnerHarness();

    @AfterEach
    void close() {
        runner.close();
    }

    @Test
    void everyRecordARunCausesCarriesTheTraceparentOfItsStartTask() {
        runner.send(start("ord_traced"), TraceHeaders.of(TRACEPARENT));

        assertThat(runner.lastProgress().status()).isEqualTo(OrderStatus.COMPLETED);
        assertThat(runner.allRecords).extracting(record -> record.value().getClass().getSimpleName())
                .contains("Batch", "OrderEvent");
        assertThat(runner.allRecords).allSatisfy(record ->
                assertThat(TraceHeaders.traceparent(record.headers())).isEqualTo(TRACEPARENT));
    }

    @Test
    void aRetryFiresWithTheTraceparentOfTheTaskThatScheduledIt() {
        runner.send(start("ord_retried", "carrier_down"), TraceHeaders.of(TRACEPARENT));
        assertThat(runner.instance("ord_retried").timer().traceparent()).isEqualTo(TRACEPARENT);
        runner.allRecords.clear();

        runner.advance(Duration.ofSeconds(2));

        assertThat(runner.allRecords).isNotEmpty().allSatisfy(record ->
                assertThat(TraceHeaders.traceparent(record.headers())).isEqualTo(TRACEPARENT));
    }

    @Test
    void aTaskWithoutATraceparentCausesRecordsWithout() {
        runner.send(start("ord_untraced"), new RecordHeaders());

        assertThat(runner.allRecords).isNotEmpty()
                .allSatisfy(record -> assertThat(record.headers().toArray()).isEmpty());
    }

    private static NodeTask.StartRun start(String orderId, String... simulate) {
        ObjectNode order = RunnerHarness.order(orderId, "storefront_order",
                "{\"lines\":[{\"sku\":\"WIDGET-1\",\"qty\":1,\"unitPrice\":10}]}");
        order.putObject("meta").set("simulate", Json.tree(List.of(simulate)));
        return new NodeTask.StartRun(orderId, orderId + ".1", RunnerHarness.version("storefront_order", 1), order,
                Json.object());
    }
}
