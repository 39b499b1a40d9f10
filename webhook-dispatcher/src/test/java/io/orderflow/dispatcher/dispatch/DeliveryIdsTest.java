package io.orderflow.dispatcher.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DeliveryIdsTest {

    @Test
    void theSameOrderStepAndSubscriptionGiveTheSameId() {
        assertThat(DeliveryIds.of("ord_1", "ord_1.1:ship:4", "whs_a"))
                .isEqualTo(DeliveryIds.of("ord_1", "ord_1.1:ship:4", "whs_a"))
                .matches("dlv_[0-9a-f]{32}");
    }

    @Test
    void anyDifferenceGivesAnotherId() {
        String id = DeliveryIds.of("ord_1", "cancel", "whs_a");
        assertThat(DeliveryIds.of("ord_2", "cancel", "whs_a")).isNotEqualTo(id);
        assertThat(DeliveryIds.of("ord_1", "end", "whs_a")).isNotEqualTo(id);
        assertThat(DeliveryIds.of("ord_1", "cancel", "whs_b")).isNotEqualTo(id);
        assertThat(DeliveryIds.of("ord_1c", "ancel", "whs_a")).isNotEqualTo(id);
    }

    @Test
    void isPinned() {
        // A changed derivation would resend every delivery after an upgrade: keep it stable.
        assertThat(DeliveryIds.of("ord_1", "cancel", "whs_a")).isEqualTo("dlv_978cc72ad98c1035cf7c9e87012bc910");
    }
}
