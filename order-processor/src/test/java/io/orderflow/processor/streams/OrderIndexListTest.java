package io.orderflow.processor.streams;

import io.orderflow.processor.index.OrderIndexReads;
import io.orderflow.processor.query.OrderQueryRouter;
import io.orderflow.processor.query.Pages;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderIndexRow;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.query.OrderQueries;
import io.orderflow.schemas.reports.RunReport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import static io.orderflow.processor.streams.Fixtures.ORDER;
import static io.orderflow.processor.streams.Fixtures.start;
import static io.orderflow.processor.streams.Reports.approvalWait;
import static io.orderflow.processor.streams.Reports.eventWait;
import static io.orderflow.processor.streams.Reports.progress;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The order index as the list endpoint reads it: this instance's page from the index store and the keys beside its
 * rows, merged by the same code the internal {@code GET /internal/orders} runs ({@link OrderQueryRouter#listPage},
 * {@link Pages#merge}).
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
        List<JsonNode> rows = rows(list(OrderQueries.ListQuery.of(null, null, null)));
        assertThat(ids(rows)).containsExactly("ord_c", "ord_d", "ord_a", "ord_b");
        assertThat(rows.getLast().get("status").asString()).isEqualTo("cancelled");
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
        assertThat(ids(listed("b2b_order", null, null))).containsExactly("ord_b2b");
        assertThat(ids(listed(null, "cancelled", null))).containsExactly("ord_shop");
        assertThat(ids(listed(null, "queued", "ACME"))).containsExactly("ord_b2b");
        assertThat(ids(listed("b2b_order", "queued", "acme_gmbh"))).containsExactly("ord_b2b");
        assertThat(ids(listed("storefront_order", "queued", null))).isEmpty();
        assertThat(ids(listed(null, null, null))).containsExactlyInAnyOrder("ord_shop", "ord_b2b");
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
        JsonNode rows = list(OrderQueries.ListQuery.of(null, null, null)).get("orders");

        // then it answers the 200 newest, newest first; the five oldest are left out
        assertThat(rows).hasSize(200);
        assertThat(ids(rows)).containsExactlyElementsOf(started.reversed().subList(0, 200));
        assertThat(ids(rows)).doesNotContain("ord_000", "ord_004");
    }

    @Test
    void pastThe200NewestTheCursorPagesThroughEveryOrderOfTwoInstancesAndTheCountsCoverThemAll() {
        // given 260 orders started one millisecond apart on two instances, every other one on each, every tenth
        // cancelled
        AgentDriver other = new AgentDriver();
        try {
            List<String> started = new ArrayList<>();
            IntStream.range(0, 260).forEach(i -> {
                String id = "ord_%03d".formatted(i);
                AgentDriver owner = i % 2 == 0 ? agent : other;
                owner.command(start(id));
                if (i % 10 == 0) {
                    owner.command(new OrderCommand.CancelOrder(id, null));
                }
                started.add(id);
                agent.advance(Duration.ofMillis(1));
                other.advance(Duration.ofMillis(1));
            });

            // when the list is read 200 rows at a time, each instance sending its own page past the cursor
            List<String> seen = new ArrayList<>();
            String cursor = null;
            int pages = 0;
            do {
                OrderQueries.ListQuery query = new OrderQueries.ListQuery(null, null, null, null, null, null, cursor,
                        200);
                JsonNode page = Pages.merge("orders", List.of(answer(agent, query), answer(other, query)),
                        Pages.CREATED, 200);
                seen.addAll(ids(page.get("orders")));
                cursor = page.has("next") ? page.get("next").asString() : null;
                pages++;
            } while (cursor != null);

            // then the first page is the 200 newest, and the pages together hold every order once, newest first
            assertThat(pages).isEqualTo(2);
            assertThat(seen).hasSize(260).doesNotHaveDuplicates().containsExactlyElementsOf(started.reversed());
            // and the counts are of the whole index, not of a page: the counters of both instances
            JsonNode mine = OrderIndexReads.counts(agent.partitions(OrderAgent.INDEX),
                    OrderQueries.ListQuery.of(null, null, null));
            JsonNode theirs = OrderIndexReads.counts(other.partitions(OrderAgent.INDEX),
                    OrderQueries.ListQuery.of(null, null, null));
            assertThat(mine.get("counts").get("cancelled").asLong() + theirs.get("counts").get("cancelled").asLong())
                    .isEqualTo(26);
            assertThat(mine.get("counts").get("queued").asLong() + theirs.get("counts").get("queued").asLong())
                    .isEqualTo(234);
            assertThat(mine.get("counts").get("completed").asLong()).isZero();
            assertThat(mine.get("total").asLong() + theirs.get("total").asLong()).isEqualTo(260);
        } finally {
            other.close();
        }
    }

    @Test
    void countsFollowEveryChangeAndMatchTheListUnderEachFilter() {
        // given orders of two types, some cancelled, started a second apart
        long first = agent.now();
        for (int i = 0; i < 12; i++) {
            String id = "ord_c%02d".formatted(i);
            if (i % 3 == 0) {
                agent.command(new OrderCommand.StartOrder(id, Fixtures.FLOW, Json.MAPPER.readTree("""
                        {"type":"b2b_order","customerId":"acme_%d","currency":"EUR","lines":[]}""".formatted(i % 2)),
                        Json.object(), "fp-" + id, true));
            } else {
                agent.command(start(id));
            }
            if (i % 4 == 0) {
                agent.command(new OrderCommand.CancelOrder(id, null));
            }
            agent.advance(Duration.ofSeconds(1));
        }

        // when / then: every count equals the number of rows the list finds with the same filters
        List<OrderQueries.ListQuery> filters = List.of(
                OrderQueries.ListQuery.of(null, null, null),
                OrderQueries.ListQuery.of("b2b_order", null, null),
                OrderQueries.ListQuery.of(null, null, "acme_1"),
                new OrderQueries.ListQuery(null, null, null, first + 3_000, first + 8_000, null, null, 200),
                new OrderQueries.ListQuery("storefront_order", null, "cus", first + 2_000, null, null, null, 200));
        for (OrderQueries.ListQuery filter : filters) {
            JsonNode counts = OrderIndexReads.counts(agent.partitions(OrderAgent.INDEX), filter);
            for (String status : List.of("queued", "cancelled", "completed")) {
                OrderQueries.ListQuery withStatus = new OrderQueries.ListQuery(filter.type(), status, filter.q(),
                        filter.since(), filter.until(), null, null, 200);
                assertThat(counts.get("counts").get(status).asLong()).as("%s %s", status, filter)
                        .isEqualTo(rows(list(withStatus)).size());
            }
            assertThat(counts.get("total").asLong()).as("total %s", filter)
                    .isEqualTo(rows(list(filter)).size());
        }
        assertThat(OrderIndexReads.counts(agent.partitions(OrderAgent.INDEX), filters.get(1)).get("counts")
                .get("cancelled").asLong()).isEqualTo(1);
    }

    @Test
    void aSearchFindsWordsAndTheirBeginningsAcrossIdTitleCustomerSkuAndName() {
        // given orders for two customers, one with a named customer and lines
        agent.command(start("ord_one"));
        agent.command(new OrderCommand.StartOrder("ord_two", Fixtures.FLOW, Json.MAPPER.readTree("""
                {"type":"b2b_order","customerId":"cus_nordwind-7","meta":{"customerName":"Jane Doe"},"currency":"EUR",
                 "lines":[{"sku":"CHAIR-ERGO-42","name":"Ergonomic chair","qty":2,"price":100}]}"""),
                Json.object(), "fp-two", true));

        // when / then: a word or the beginning of one, in any case, in any of the row's texts
        assertThat(ids(listed(null, null, "ord_two"))).containsExactly("ord_two");
        assertThat(ids(listed(null, null, "JAN"))).containsExactly("ord_two");
        assertThat(ids(listed(null, null, "storef"))).as("the title").containsExactlyInAnyOrder("ord_one", "ord_two");
        assertThat(ids(listed(null, null, "nordwind"))).containsExactly("ord_two");
        assertThat(ids(listed(null, null, "cus_nordwind-7"))).containsExactly("ord_two");
        assertThat(ids(listed(null, null, "chair-ergo"))).containsExactly("ord_two");
        assertThat(ids(listed(null, null, "ergonomic"))).containsExactly("ord_two");
        assertThat(ids(listed(null, null, "jane doe"))).containsExactly("ord_two");
        assertThat(ids(listed(null, null, "cus_42"))).containsExactly("ord_one");
        assertThat(ids(listed(null, null, "cus"))).containsExactlyInAnyOrder("ord_one", "ord_two");
        // every word must be found, and a word is matched from its start
        assertThat(ids(listed(null, null, "jane smith"))).isEmpty();
        assertThat(ids(listed(null, null, "rgonomic"))).isEmpty();
        // a word longer than the indexed prefix is still compared whole
        assertThat(ids(listed(null, null, "ergonomically"))).isEmpty();
        // short words are found by a scan, with the same rule
        assertThat(ids(listed(null, null, "42"))).containsExactlyInAnyOrder("ord_one", "ord_two");
        assertThat(ids(listed(null, null, "do"))).containsExactly("ord_two");
    }

    @Test
    void aFilteringReadStopsAtItsBudgetAndItsCursorCarriesOnWithoutLosingARow() {
        // given 40 orders, every seventh for another customer, a millisecond apart
        List<String> wanted = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String id = "ord_%03d".formatted(i);
            if (i % 7 == 0) {
                agent.command(new OrderCommand.StartOrder(id, Fixtures.FLOW, Json.MAPPER.readTree("""
                        {"type":"storefront_order","customerId":"zz","currency":"EUR","lines":[]}"""),
                        Json.object(), "fp-" + id, true));
                wanted.add(id);
            } else {
                agent.command(start(id));
            }
            agent.advance(Duration.ofMillis(1));
        }

        // when a search for a short word (read by a scan) examines at most 10 rows per page
        List<String> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            OrderQueries.ListQuery query = new OrderQueries.ListQuery(null, null, "zz", null, null, null, cursor, 200);
            Pages.Position after = cursor == null ? null : Pages.position(Pages.CREATED, cursor);
            OrderIndexReads.Page page = OrderIndexReads.page(agent.partitions(OrderAgent.INDEX), query,
                    after == null ? null : new OrderIndexReads.Position(after.number(), after.id()), 10);
            JsonNode merged = Pages.merge("orders", List.of(new Pages.Answer(page.rows(), page.next() == null ? null
                    : new Pages.Position(page.next().time(), page.next().id()))), Pages.CREATED, 200);
            seen.addAll(ids(merged.get("orders")));
            cursor = merged.has("next") ? merged.get("next").asString() : null;
            pages++;
        } while (cursor != null);

        // then each page answered what its 10 rows held, and the pages together hold every match once, newest first
        assertThat(pages).isEqualTo(4);
        assertThat(seen).containsExactlyElementsOf(wanted.reversed());
    }

    @Test
    void byLastChangeASearchOrACreationRangeIsSortedWhetherItMatchesFewOrMany() {
        // given 30 orders a second apart, each changed later in reverse order of creation
        long first = agent.now();
        for (int i = 0; i < 30; i++) {
            agent.command(start("ord_%02d".formatted(i)));
            agent.advance(Duration.ofSeconds(1));
        }
        for (int i = 29; i >= 0; i -= 2) {
            agent.command(new OrderCommand.CancelOrder("ord_%02d".formatted(i), null));
            agent.advance(Duration.ofSeconds(1));
        }

        // when a search and a creation range are listed by last change, 7 rows a page
        for (OrderQueries.ListQuery query : List.of(
                new OrderQueries.ListQuery(null, null, "cus_42", null, null, OrderQueries.SORT_UPDATED, null, 7),
                new OrderQueries.ListQuery(null, null, null, first + 5_000, first + 24_000, OrderQueries.SORT_UPDATED,
                        null, 7))) {
            List<JsonNode> seen = new ArrayList<>();
            String cursor = null;
            do {
                JsonNode page = list(new OrderQueries.ListQuery(query.type(), query.status(), query.q(),
                        query.since(), query.until(), query.sort(), cursor, 7));
                page.get("orders").forEach(seen::add);
                cursor = page.has("next") ? page.get("next").asString() : null;
            } while (cursor != null);

            // then the pages hold every match once, most recently changed first
            List<Long> changed = seen.stream().map(row -> row.get("updatedAt").asLong()).toList();
            assertThat(changed).isSortedAccordingTo(java.util.Comparator.reverseOrder());
            assertThat(ids(seen)).doesNotHaveDuplicates()
                    .hasSize(query.since() == null ? 30 : 20);
        }
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
        List<JsonNode> rows = rows(list(new OrderQueries.ListQuery(null, null, null, null, null,
                OrderQueries.SORT_UPDATED, null, 200)));
        assertThat(ids(rows)).containsExactly("ord_old", "ord_new", "ord_mid");
        // since and until bound the creation time, both ends included
        assertThat(ids(rows(list(new OrderQueries.ListQuery(null, null, null,
                first + 1_000, first + 2_000, null, null, 200))))).containsExactly("ord_new", "ord_mid");
        // q finds a line's SKU and name, and the search text is not part of the row
        assertThat(ids(listed(null, null, "sku-1"))).hasSize(3);
        assertThat(ids(listed(null, null, "widget"))).hasSize(3);
        assertThat(ids(listed(null, null, "SKU-2"))).isEmpty();
        assertThat(rows.getFirst().has(OrderIndexRow.SEARCH)).isFalse();
    }

    @Test
    void aCursorOfAnotherOrderOrNotWrittenHereIsRefused() {
        JsonNode row = Json.object().put("id", "ord_1").put("createdAt", 5).put("updatedAt", 6);
        String byUpdate = Pages.cursor(Pages.UPDATED, row);
        assertThatThrownBy(() -> Pages.position(Pages.CREATED, byUpdate)).isInstanceOf(Pages.BadCursor.class);
        assertThatThrownBy(() -> Pages.position(Pages.CREATED, "not*base64"))
                .isInstanceOf(Pages.BadCursor.class);
    }

    /** The list as the internal query API answers it from this instance. */
    private JsonNode list(OrderQueries.ListQuery query) {
        return Pages.merge("orders", List.of(answer(agent, query)), query.byUpdate() ? Pages.UPDATED : Pages.CREATED,
                query.limit());
    }

    private static Pages.Answer answer(AgentDriver instance, OrderQueries.ListQuery query) {
        Pages.Order order = query.byUpdate() ? Pages.UPDATED : Pages.CREATED;
        return OrderQueryRouter.listPage(instance.partitions(OrderAgent.INDEX), query,
                query.cursor() == null ? null : Pages.position(order, query.cursor()));
    }

    private List<JsonNode> listed(String type, String status, String q) {
        return rows(list(OrderQueries.ListQuery.of(type, status, q)));
    }

    private static List<JsonNode> rows(JsonNode page) {
        List<JsonNode> rows = new ArrayList<>();
        page.get("orders").forEach(rows::add);
        return rows;
    }

    private JsonNode onlyRow() {
        List<JsonNode> rows = listed(null, null, null);
        assertThat(rows).as("one index row per order").hasSize(1);
        return rows.getFirst();
    }

    private static List<String> ids(Iterable<JsonNode> rows) {
        List<String> ids = new ArrayList<>();
        rows.forEach(row -> ids.add(row.get("id").asString()));
        return ids;
    }
}
