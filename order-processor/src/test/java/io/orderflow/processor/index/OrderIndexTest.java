package io.orderflow.processor.index;

import io.orderflow.processor.store.IndexedStore;
import io.orderflow.schemas.model.OrderIndexRow;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.OrderType;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The list filters ({@code type}, {@code status}, {@code q}) and the index key order. */
class OrderIndexTest {

    private static final OrderIndexRow B2B = row("ord_7Kx2", OrderType.B2B_ORDER, OrderStatus.WAITING,
            "Wholesale order · acme_gmbh", "acme_gmbh", 1_000);

    @Test
    void noFilterMatchesEveryRow() {
        assertThat(OrderIndex.matches(B2B, null, null, null)).isTrue();
        assertThat(OrderIndex.matches(B2B, "", " ", "")).as("blank parameters are no filter").isTrue();
    }

    @Test
    void typeFilterMatchesOnlyThatOrderType() {
        assertThat(OrderIndex.matches(B2B, "b2b_order", null, null)).isTrue();
        assertThat(OrderIndex.matches(B2B, "storefront_order", null, null)).isFalse();
        assertThat(OrderIndex.matches(B2B, "B2B_ORDER", null, null)).as("types are matched as spelled").isFalse();

        OrderIndexRow untyped = row("ord_x", null, OrderStatus.QUEUED, "x", "c", 1);
        assertThat(OrderIndex.matches(untyped, "b2b_order", null, null)).isFalse();
        assertThat(OrderIndex.matches(untyped, null, null, null)).isTrue();
    }

    @Test
    void statusFilterMatchesOnlyThatStatus() {
        assertThat(OrderIndex.matches(B2B, null, "waiting", null)).isTrue();
        assertThat(OrderIndex.matches(B2B, null, "running", null)).isFalse();
        assertThat(OrderIndex.matches(B2B, "b2b_order", "waiting", null)).isTrue();
        assertThat(OrderIndex.matches(B2B, "b2b_order", "completed", null)).as("filters combine").isFalse();
    }

    @Test
    void queryMatchesTheOrderIdTitleOrCustomerIdIgnoringCase() {
        assertThat(OrderIndex.matches(B2B, null, null, "ord_7kx2")).as("the id").isTrue();
        assertThat(OrderIndex.matches(B2B, null, null, "7KX")).as("part of the id").isTrue();
        assertThat(OrderIndex.matches(B2B, null, null, "wholesale")).as("the title").isTrue();

        OrderIndexRow titledOtherwise = row("ord_1", OrderType.REORDER, OrderStatus.RUNNING, "Monthly refill",
                "cus_Zeta", 1);
        assertThat(OrderIndex.matches(titledOtherwise, null, null, "ZETA")).as("the customer id").isTrue();
        assertThat(OrderIndex.matches(titledOtherwise, null, null, "REFILL")).isTrue();
    }

    @Test
    void queryDoesNotMatchOtherFieldsOrOtherText() {
        assertThat(OrderIndex.matches(B2B, null, null, "globex")).isFalse();
        assertThat(OrderIndex.matches(B2B, null, null, "EUR")).as("currency is not searched").isFalse();
        assertThat(OrderIndex.matches(B2B, null, null, "waiting")).as("status is not searched").isFalse();
        assertThat(OrderIndex.matches(B2B, null, null, "b2b_order")).as("type is not searched").isFalse();

        OrderIndexRow bare = row("ord_2", OrderType.REORDER, OrderStatus.QUEUED, null, null, 1);
        assertThat(OrderIndex.matches(bare, null, null, "cus")).as("missing title and customer").isFalse();
        assertThat(OrderIndex.matches(bare, null, null, "ord_2")).isTrue();
    }

    @Test
    void keysSortNewestFirstThenByOrderId() {
        List<String> keys = Stream.of(
                        OrderIndex.key(1_000L, "ord_a"),
                        OrderIndex.key(9_999_999_999_999L, "ord_b"),
                        OrderIndex.key(0L, "ord_c"),
                        OrderIndex.key(2_000L, "ord_z"),
                        OrderIndex.key(2_000L, "ord_d"))
                .sorted().toList();

        assertThat(keys).containsExactly(OrderIndex.key(9_999_999_999_999L, "ord_b"),
                OrderIndex.key(2_000L, "ord_d"), OrderIndex.key(2_000L, "ord_z"),
                OrderIndex.key(1_000L, "ord_a"), OrderIndex.key(0L, "ord_c"));
    }

    @Test
    void aRowIsListedInEachOfItsScopesCountedOnceAndFoundByTheBeginningsOfItsWords() {
        String key = OrderIndex.key(B2B.createdAt(), B2B.id());
        IndexedStore.Derived derived = OrderIndex.derived(key, B2B);

        assertThat(derived.entries()).containsKeys(
                "~c|*|" + key, "~c|s=waiting|" + key, "~c|t=b2b_order|" + key, "~c|t=b2b_order&s=waiting|" + key,
                "~w|ord|" + key, "~w|ord_7kx|" + key, "~w|7kx|" + key, "~w|wholesa|" + key.replace("wholesa", ""),
                "~w|acme_gm|" + key, "~w|gmbh|" + key);
        assertThat(derived.entries()).as("prefixes are kept up to 8 characters")
                .containsKey("~w|wholesal|" + key).doesNotContainKey("~w|wholesale|" + key)
                .as("and from 3").doesNotContainKey("~w|wh|" + key);
        assertThat(derived.counters()).containsExactlyInAnyOrder("~n|*|waiting", "~n|b2b_order|waiting");
        assertThat(derived.entries().keySet()).allMatch(entry -> !OrderIndex.isRow(entry));
        assertThat(OrderIndex.isRow(key)).isTrue();
    }

    private static OrderIndexRow row(String id, OrderType type, OrderStatus status, String title, String customerId,
                                     long createdAt) {
        return new OrderIndexRow(id, type, status, title, "flow", 1, id + ".1", 1, customerId, "EUR",
                new BigDecimal("10.00"), "", createdAt, createdAt, null);
    }
}
