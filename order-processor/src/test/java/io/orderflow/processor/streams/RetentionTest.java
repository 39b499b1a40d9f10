package io.orderflow.processor.streams;

import io.orderflow.processor.index.OrderIndexReads;
import io.orderflow.processor.order.AgentSettings;
import io.orderflow.processor.query.OrderQueryRouter;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.model.ChatMessage;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.query.OrderQueries;
import io.orderflow.schemas.tasks.NodeTask;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.List;

import static io.orderflow.processor.streams.Fixtures.start;
import static io.orderflow.processor.streams.Reports.approvalWait;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Retention: an ended order leaves the live state, the index, the counts and the inbox once {@code ORDER_RETENTION}
 * has passed since its last change, and its final state goes to {@code orders-archive}; orders still open stay.
 */
class RetentionTest {

    private static final Duration RETENTION = Duration.ofHours(1);

    private final AgentDriver agent = new AgentDriver(new AgentSettings(1440, 5, RETENTION));

    @AfterEach
    void close() {
        agent.close();
    }

    @Test
    void anEndedOrderIsArchivedWhenItsRetentionRunsOutAndAnOpenOneStays() {
        // given an order waiting for an approval, and one cancelled while it waited for its own
        agent.command(start("ord_open"));
        agent.report(approvalWait("ord_open", Duration.ofDays(3650).toMillis(), agent.now()));
        agent.command(start("ord_done"));
        agent.report(approvalWait("ord_done", Duration.ofDays(3650).toMillis(), agent.now()));
        agent.command(new OrderCommand.CancelOrder("ord_done", "No longer needed"));
        agent.archived();
        agent.updateRecords();

        // when just under the retention passes, nothing leaves
        agent.advance(RETENTION.minusSeconds(2));
        assertThat(agent.archived()).isEmpty();
        assertThat(agent.state("ord_done")).isNotNull();

        // and when it has passed
        agent.advance(Duration.ofSeconds(3));

        // then the ended order's final state is on the archive topic, and a tombstone on order-updates
        List<KeyValue<String, byte[]>> archived = agent.archived();
        assertThat(archived).singleElement().satisfies(record -> {
            assertThat(record.key).isEqualTo("ord_done");
            JsonNode state = Json.MAPPER.readTree(record.value);
            assertThat(state.get("status").asString()).isEqualTo("cancelled");
            assertThat(state.get("orderId").asString()).isEqualTo("ord_done");
        });
        assertThat(agent.updateRecords()).anySatisfy(update -> {
            assertThat(update.key).isEqualTo("ord_done");
            assertThat(update.value).isNull();
        });
        // and the runner is told to drop its run instance
        assertThat(agent.tasks()).contains(new NodeTask.ForgetRun("ord_done"));
        // and it left the live state, the list, the counts and the inbox; its archiving is remembered
        assertThat(agent.state("ord_done")).isNull();
        assertThat(agent.indexRows()).extracting(row -> row.id()).containsExactly("ord_open");
        JsonNode counts = OrderIndexReads.counts(agent.partitions(OrderAgent.INDEX),
                OrderQueries.ListQuery.of(null, null, null));
        assertThat(counts.get("total").asLong()).isEqualTo(1);
        assertThat(counts.get("counts").get("cancelled").asLong()).isZero();
        assertThat(OrderIndexReads.page(agent.partitions(OrderAgent.INDEX),
                OrderQueries.ListQuery.of(null, null, "ord_done"), null).rows()).isEmpty();
        assertThat(OrderQueryRouter.inboxPage(agent.partitions(OrderAgent.APPROVALS), "all", null, null).rows())
                .extracting(row -> row.get("orderId").asString()).containsExactly("ord_open");
        KeyValueStore<String, Long> marks = agent.store(OrderAgent.ARCHIVED);
        assertThat(marks.get("ord_done")).isEqualTo(agent.now());
        // and the open order is as it was
        assertThat(agent.state("ord_open").waits()).hasSize(1);
    }

    @Test
    void anOrderChangedAfterItEndedIsKeptForTheRetentionAfterItsLastChange() {
        // given a cancelled order that is changed again half-way through its retention (a chat message, say)
        agent.command(start("ord_late"));
        agent.command(new OrderCommand.CancelOrder("ord_late", null));
        agent.advance(RETENTION.dividedBy(2));
        agent.command(new OrderCommand.AppendChat("ord_late", List.of(new ChatMessage("msg_1", agent.now(),
                ChatMessage.USER, "why was this cancelled?", "dana", null, null, null))));
        assertThat(agent.state("ord_late").updatedAt()).isEqualTo(agent.now());

        // when the retention after its end has passed, but not after its last change
        agent.advance(RETENTION.dividedBy(2).plusSeconds(2));

        // then it is still there, and archived one retention after the last change
        assertThat(agent.archived()).isEmpty();
        assertThat(agent.state("ord_late")).isNotNull();
        agent.advance(RETENTION.dividedBy(2));
        assertThat(agent.archived()).extracting(record -> record.key).containsExactly("ord_late");
        assertThat(agent.state("ord_late")).isNull();
    }
}
