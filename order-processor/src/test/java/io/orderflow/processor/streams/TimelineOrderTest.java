package io.orderflow.processor.streams;

import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.TimelineEntry;
import io.orderflow.schemas.reports.RunReport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static io.orderflow.processor.streams.Fixtures.ORDER;
import static io.orderflow.processor.streams.Fixtures.start;
import static io.orderflow.processor.streams.Reports.INSTANCE;
import static io.orderflow.processor.streams.Reports.log;
import static io.orderflow.processor.streams.Reports.status;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The timeline reads in the order things happened, each entry at the time the run did it: a status entry carries the
 * time the run reached the status, not the time its report reached the agent.
 */
class TimelineOrderTest {

    private final AgentDriver agent = new AgentDriver();

    @AfterEach
    void close() {
        agent.close();
    }

    @Test
    void aStorefrontRunReadsStartedRunningEachNodeThenCompletedAtTheRunsTimes() {
        // given an order started at t0
        long t0 = agent.now();
        agent.command(start(ORDER));

        // when the run's record arrives five seconds later, as the runner sends it: running where it was reached,
        // the node details, then completed
        agent.advance(Duration.ofSeconds(5));
        agent.report(new RunReport.Batch(ORDER, INSTANCE, List.of(
                status(1, OrderStatus.RUNNING, t0 + 10),
                log("pricing", t0 + 11, "Price order: Subtotal 25.00 USD", null),
                log("tax", t0 + 12, "Sales tax: Tax 2.00 USD", null),
                log("end", t0 + 13, "Completed: Outcome: completed", null),
                status(2, OrderStatus.COMPLETED, t0 + 14))));

        // then the timeline reads in that order, every entry at the run's time
        List<TimelineEntry> timeline = agent.state(ORDER).timeline();
        assertThat(timeline).extracting(TimelineEntry::message).containsExactly(
                "Started on flow Storefront order (storefront_order) version 1",
                "Order running",
                "Price order: Subtotal 25.00 USD",
                "Sales tax: Tax 2.00 USD",
                "Completed: Outcome: completed",
                "Order completed");
        assertThat(timeline).extracting(TimelineEntry::at)
                .containsExactly(t0, t0 + 10, t0 + 11, t0 + 12, t0 + 13, t0 + 14)
                .isSorted();
    }

    @Test
    void aReportWithoutItsTimeIsLoggedWhenItArrives() {
        agent.command(start(ORDER));
        agent.advance(Duration.ofSeconds(5));

        agent.report(status(1, OrderStatus.RUNNING, 0));

        assertThat(agent.state(ORDER).timeline().getLast().at()).isEqualTo(agent.now());
    }
}
