package io.orderflow.processor.streams;

import io.orderflow.processor.query.OrderQueryRouter;
import io.orderflow.processor.query.Pages;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderIndexRow;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.query.OrderQueries;
import io.orderflow.schemas.reports.RunReport;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static io.orderflow.processor.streams.Fixtures.ORDER;
import static io.orderflow.processor.streams.Fixtures.start;
import static io.orderflow.processor.streams.Reports.approvalWait;
import static io.orderflow.processor.streams.Reports.eventWait;
import static io.orderflow.processor.streams.Reports.progress;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The order index as the list endpoint reads it: this instance's rows from the index store, filtered and merged by
 * the same code the internal {@code GET /internal/orders} runs ({@link OrderQueryRouter#indexRows},
 * {@link OrderQueryRouter#merged}).
 */
class OrderIndexListTest {

    private static final long TWO_DAYS = Duration.ofDays(2).toMillis();
    private static final long THIRTY_DAYS = Duration.ofDays(30).toMillis();

    private final AgentDriver agent = new AgentDriver();

    @AfterEach
    void close() {
        agent.close();
    }

    @Test
    void aListRowCarriesEverySpecFieldAndOnlyUpdatedAtMovesWithTheOrder() {
        // given an order just started: queued, not priced, waiting on nothing
        long startedAt = agent.now();
        agent.command(start(ORDER));
        JsonNode queued = onlyRow();
        assertThat(queued.get("status").asString()).isEqualTo("queued");
        assertThat(queued.get("createdAt").asLong()).isEqualTo(startedAt);
        assertThat(queued.get("updatedAt").asLong()).isEqualTo(startedAt);
        assertThat(queued.get("waitingOn").asString()).isEmpty();
        // the contract lists total among the row's fields: present, null, before the run prices the order
        assertThat(queued.get("total").isNull()).as("no total before the run prices the order").isTrue();

        // when, later, the run prices it and waits on an approval and a payment, then continues as generation 2
        agent.advance(Duration.ofSeconds(5));
        agent.report(progress(1, 1, OrderStatus.WAITING));
        agent.report(approvalWait(TWO_DAYS, agent.now()));
        agent.report(eventWait("payment.received", THIRTY_DAYS, agent.now()));
        agent.advance(Duration.ofSeconds(3));
        long continuedAt = agent.now();
        agent.report(new RunReport.Continued(ORDER, ORDER + ".2", 2, ORDER + ".1"));

        // then the one row of the order shows exactly the spec's fields, with the live values
        JsonNode row = onlyRow();
        List<String> fields = new ArrayList<>();
        row.propertyNames().forEach(fields::add);
        assertThat(fields).containsExactlyInAnyOrder("id", "type", "status", "title", "flowId", "flowVersion",
                "instanceId", "generation", "customerId", "currency", "total", "waitingOn", "createdAt", "updatedAt");
        assertThat(row.get("id").asString()).isEqualTo(ORDER);
        assertThat(row.get("type").asString()).isEqualTo("storefront_order");
        assertThat(row.get("status").asString()).isEqualTo("waiting");
        assertThat(row.get("title").asString()).isEqualTo("Storefront order · cus_42");
        assertThat(row.get("flowId").asString()).isEqualTo("storefront_order");
        assertThat(row.get("flowVersion").asInt()).isEqualTo(1);
        assertThat(row.get("instanceId").asString()).isEqualTo(ORDER + ".2");
        assertThat(row.get("generation").asInt()).isEqualTo(2);
        assertThat(row.get("customerId").asString()).isEqualTo("cus_42");
        assertThat(row.get("currency").asString()).isEqualTo("USD");
        assertThat(row.get("total").decimalValue()).isEqualByComparingTo("27.00");
        assertThat(row.get("waitingOn").asString()).isEqualTo("Approve order " + ORDER + " · Wait for payment.received");
        assertThat(row.get("createdAt").isIntegralNumber()).isTrue();
        assertThat(row.get("createdAt").asLong()).as("createdAt never moves").isEqualTo(startedAt);
        assertThat(row.get("updatedAt").asLong()).as("updatedAt is the last change").isEqualTo(continuedAt);
    }

    @Test
    void theIndexIteratesNewestFirstByStartTimeThenOrderId() {
        // given orders started at increasing times, two of them in the same millisecond
        agent.command(start("ord_b"));
        agent.advance(Duration.ofSeconds(1));
        agent.command(start("ord_a"));
        agent.advance(Duration.ofSeconds(1));
        agent.command(start("ord_d"));
        agent.command(start("ord_c"));

        // when the oldest one changes afterwards
        agent.advance(Duration.ofSeconds(1));
        agent.command(new OrderCommand.CancelOrder("ord_b", null));

        // then the store answers newest first (a change does not move a row), equal start times by id
        List<JsonNode> rows = OrderQueryRouter.indexRows(index(), null, null, null);
        assertThat(ids(rows)).containsExactly("ord_c", "ord_d", "ord_a", "ord_b");
        assertThat(rows.getLast().get("status").asString()).isEqualTo("cancelled");
        // and merging (as the scatter-gather does) keeps that order
        assertThat(ids(OrderQueryRouter.merged("orders", rows, 200).get("orders")))
                .containsExactly("ord_c", "ord_d", "ord_a", "ord_b");
    }

    @Test
    void theListFiltersByTypeStatusAndQueryOnTheLiveRows() {
        // given a storefront order that was cancelled and a B2B order for another customer, still queued
        agent.command(start("ord_shop"));
        agent.command(new OrderCommand.CancelOrder("ord_shop", "Customer changed their mind"));
        agent.command(new OrderCommand.StartOrder("ord_b2b", Fixtures.FLOW, Json.MAPPER.readTree("""
                {"type":"b2b_order","customerId":"acme_gmbh","currency":"EUR","lines":[]}"""),
                Json.object(), "fp-b2b", true));

        // when / then
        assertThat(ids(OrderQueryRouter.indexRows(index(), "b2b_order", null, null))).containsExactly("ord_b2b");
        assertThat(ids(OrderQueryRouter.indexRows(index(), null, "cancelled", null))).containsExactly("ord_shop");
        assertThat(ids(OrderQueryRouter.indexRows(index(), null, "queued", "ACME"))).containsExactly("ord_b2b");
        assertThat(ids(OrderQueryRouter.indexRows(index(), "storefront_order", "queued", null))).isEmpty();
        assertThat(ids(OrderQueryRouter.indexRows(index(), null, null, null)))
                .containsExactlyInAnyOrder("ord_shop", "ord_b2b");
    }

    @Test
    void theListKeepsTheNewest200Rows() {
        // given 205 orders started one millisecond apart
        List<String> started = new ArrayList<>();
        IntStream.range(0, 205).forEach(i -> {
            String id = "ord_%03d".formatted(i);
            agent.command(start(id));
            started.add(id);
            agent.advance(Duration.ofMillis(1));
        });

        // when the list is asked for
        JsonNode rows = OrderQueryRouter.merged("orders", OrderQueryRouter.indexRows(index(), null, null, null), 200)
                .get("orders");

        // then it answers the 200 newest, newest first; the five oldest are left out
        assertThat(rows).hasSize(200);
        assertThat(ids(rows)).containsExactlyElementsOf(started.reversed().subList(0, 200));
        assertThat(ids(rows)).doesNotContain("ord_000", "ord_004");
    }

    @Test
    void pastThe200NewestTheCursorPagesThroughEveryOrderAndTheCountsCoverThemAll() {
        // given 260 orders started one millisecond apart, every tenth one cancelled
        List<String> started = new ArrayList<>();
        IntStream.range(0, 260).forEach(i -> {
            String id = "ord_%03d".formatted(i);
            agent.command(start(id));
            if (i % 10 == 0) {
                agent.command(new OrderCommand.CancelOrder(id, null));
            }
            started.add(id);
            agent.advance(Duration.ofMillis(1));
        });
        List<JsonNode> all = OrderQueryRouter.indexRows(index(), OrderQueries.ListQuery.of(null, null, null));
        // two instances, each holding every other order
        List<JsonNode> even = new ArrayList<>();
        List<JsonNode> odd = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            (i % 2 == 0 ? even : odd).add(all.get(i));
        }

        // when the list is read 200 rows at a time, each instance sending its own page past the cursor
        List<String> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            JsonNode mine = Pages.page("orders", even, Pages.CREATED, cursor, 200, false);
            JsonNode theirs = Pages.page("orders", odd, Pages.CREATED, cursor, 200, false);
            List<JsonNode> gathered = new ArrayList<>();
            mine.get("orders").forEach(gathered::add);
            theirs.get("orders").forEach(gathered::add);
            JsonNode page = Pages.page("orders", gathered, Pages.CREATED, cursor, 200,
                    mine.has("next") || theirs.has("next"));
            seen.addAll(ids(page.get("orders")));
            cursor = page.has("next") ? page.get("next").asString() : null;
            pages++;
        } while (cursor != null);

        // then the first page is the 200 newest, and the pages together hold every order once, newest first
        assertThat(pages).isEqualTo(2);
        assertThat(seen).hasSize(260).doesNotHaveDuplicates().containsExactlyElementsOf(started.reversed());
        // and the counts are of the whole index, not of a page
        Map<String, Long> counts = OrderQueryRouter.statusCounts(index(), OrderQueries.ListQuery.of(null, null, null));
        assertThat(counts.get("cancelled")).isEqualTo(26);
        assertThat(counts.get("queued")).isEqualTo(234);
        assertThat(counts.get("completed")).isZero();
    }

    @Test
    void theListSortsByLastChangeFiltersByCreationTimeAndFindsSkus() {
        // given three orders a second apart; the oldest changes last
        long first = agent.now();
        agent.command(start("ord_old"));
        agent.advance(Duration.ofSeconds(1));
        agent.command(start("ord_mid"));
        agent.advance(Duration.ofSeconds(1));
        agent.command(start("ord_new"));
        agent.advance(Duration.ofSeconds(1));
        agent.command(new OrderCommand.CancelOrder("ord_old", null));

        // when / then: by last change the cancelled one comes first
        List<JsonNode> rows = OrderQueryRouter.indexRows(index(), OrderQueries.ListQuery.of(null, null, null));
        assertThat(ids(Pages.page("orders", rows, Pages.UPDATED, null, 200, false).get("orders")))
                .containsExactly("ord_old", "ord_new", "ord_mid");
        // since and until bound the creation time, both ends included
        assertThat(ids(OrderQueryRouter.indexRows(index(), new OrderQueries.ListQuery(null, null, null,
                first + 1_000, first + 2_000, null, null, 200)))).containsExactly("ord_new", "ord_mid");
        // q finds a line's SKU and name, and the search text is not part of the row
        assertThat(ids(OrderQueryRouter.indexRows(index(), null, null, "sku-1"))).hasSize(3);
        assertThat(ids(OrderQueryRouter.indexRows(index(), null, null, "widget"))).hasSize(3);
        assertThat(ids(OrderQueryRouter.indexRows(index(), null, null, "SKU-2"))).isEmpty();
        assertThat(rows.getFirst().has(OrderIndexRow.SEARCH)).isFalse();
    }

    @Test
    void aCursorOfAnotherOrderOrNotWrittenHereIsRefused() {
        JsonNode row = Json.object().put("id", "ord_1").put("createdAt", 5).put("updatedAt", 6);
        String byUpdate = Pages.cursor(Pages.UPDATED, row);
        assertThatThrownBy(() -> Pages.page("orders", List.of(row), Pages.CREATED, byUpdate, 10, false))
                .isInstanceOf(Pages.BadCursor.class);
        assertThatThrownBy(() -> Pages.position(Pages.CREATED, "not*base64"))
                .isInstanceOf(Pages.BadCursor.class);
    }

    private KeyValueStore<String, OrderIndexRow> index() {
        return agent.store(OrderAgent.INDEX);
    }

    private JsonNode onlyRow() {
        List<JsonNode> rows = OrderQueryRouter.indexRows(index(), null, null, null);
        assertThat(rows).as("one index row per order").hasSize(1);
        return rows.getFirst();
    }

    private static List<String> ids(Iterable<JsonNode> rows) {
        List<String> ids = new ArrayList<>();
        rows.forEach(row -> ids.add(row.get("id").asString()));
        return ids;
    }
}
