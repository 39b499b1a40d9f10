package io.orderflow.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The restore's progress as the log line and the meters give it. */
class StreamsProgressTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orderflow-order-processor-orders-changelog", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orderflow-order-processor-orders-changelog", 1);

    @Test
    void the_progress_line_names_the_service_and_counts_the_records_of_every_store_restoring() {
        StreamsProgress progress = new StreamsProgress("order-processor", new Properties(), () -> 0L);

        progress.onRestoreStart(ORDERS_0, "orders", 10_000, 150_000);
        progress.onRestoreStart(ORDERS_1, "orders", 0, 150_000);
        progress.onBatchRestored(ORDERS_0, "orders", 60_000, 50_000);
        progress.onBatchRestored(ORDERS_1, "orders", 70_000, 70_000);

        assertThat(progress.restoring()).isTrue();
        assertThat(progress.totalRecords()).isEqualTo(290_000);
        assertThat(progress.restoredRecords()).isEqualTo(120_000);
        assertThat(progress.progressLine()).isEqualTo("order-processor restoring: 41% (120,000 of 290,000 records)");
    }

    @Test
    void a_store_whose_restore_ended_counts_as_restored_whole() {
        StreamsProgress progress = new StreamsProgress("flow-runner", new Properties(), () -> 0L);
        progress.onRestoreStart(ORDERS_0, "run-instances", 0, 1_000);
        progress.onRestoreStart(ORDERS_1, "run-instances", 0, 1_000);
        // the changelog's end offset counts transaction markers, which restore no record
        progress.onBatchRestored(ORDERS_0, "run-instances", 1_000, 990);

        progress.onRestoreEnd(ORDERS_0, "run-instances", 990);

        assertThat(progress.restoredRecords()).isEqualTo(1_000);
        assertThat(progress.totalRecords()).isEqualTo(2_000);
        assertThat(progress.progressLine()).isEqualTo("flow-runner restoring: 50% (1,000 of 2,000 records)");
    }
}
