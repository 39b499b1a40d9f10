package io.orderflow.processor.streams;

import io.orderflow.processor.order.OrderState;
import io.orderflow.schemas.model.OrderStatus;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static io.orderflow.processor.streams.Fixtures.ORDER;
import static io.orderflow.processor.streams.Fixtures.start;
import static io.orderflow.processor.streams.Reports.approvalWait;
import static io.orderflow.processor.streams.Reports.progress;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reads of an order the processor just wrote are answered from {@link LiveOrders}, without the store's lock; they
 * must see exactly what the store holds, and nothing once the task that wrote it is gone.
 */
class LiveOrdersTest {

    private static byte[] json(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void answersTheLastWriteOfAnOrderAndForgetsTheOldestBeyondItsCapacity() {
        LiveOrders live = new LiveOrders(2);
        LiveOrders.Partition partition = live.open(0);

        partition.wrote("ord_a", json("{\"v\":1}"));
        partition.wrote("ord_b", json("{\"v\":1}"));
        partition.wrote("ord_a", json("{\"v\":2}"));
        partition.wrote("ord_c", json("{\"v\":1}"));

        assertThat(live.latest("ord_a")).as("written again, so newer than ord_b").isEqualTo(json("{\"v\":2}"));
        assertThat(live.latest("ord_b")).as("the oldest write, beyond two").isNull();
        assertThat(live.latest("ord_c")).isEqualTo(json("{\"v\":1}"));
    }

    @Test
    void keepsNothingWhenToldToKeepNone() {
        LiveOrders live = new LiveOrders(0);
        live.open(0).wrote("ord_a", json("{}"));

        assertThat(live.latest("ord_a")).isNull();
    }

    @Test
    void aClosedPartitionIsForgottenButNotOneOpenedAgainSince() {
        LiveOrders live = new LiveOrders(8);
        LiveOrders.Partition first = live.open(3);
        first.wrote("ord_a", json("{}"));
        LiveOrders.Partition other = live.open(4);
        other.wrote("ord_b", json("{}"));

        live.close(3, first);
        assertThat(live.latest("ord_a")).isNull();
        assertThat(live.latest("ord_b")).isNotNull();

        LiveOrders.Partition again = live.open(3);
        again.wrote("ord_a", json("{\"again\":true}"));
        live.close(3, first); // a late close of the earlier task
        assertThat(live.latest("ord_a")).isEqualTo(json("{\"again\":true}"));
    }

    @Test
    void theAgentKeepsWhatItStoresAndForgetsItWhenItsTaskCloses() {
        AgentDriver agent = new AgentDriver();
        try {
            agent.command(start(ORDER));
            assertThat(live(agent)).isEqualTo(stored(agent)).isNotNull();
            assertThat(state(live(agent)).status()).isEqualTo(OrderStatus.QUEUED);

            agent.advance(Duration.ofSeconds(1));
            agent.report(progress(1, 1, OrderStatus.RUNNING));
            agent.report(approvalWait(Duration.ofHours(1).toMillis(), agent.now()));
            assertThat(live(agent)).isEqualTo(stored(agent));
            assertThat(state(live(agent)).status()).isEqualTo(OrderStatus.RUNNING);
            assertThat(state(live(agent)).waits()).singleElement().extracting(w -> w.nodeId()).isEqualTo("approve");
            assertThat(state(live(agent)).version()).isEqualTo(agent.state(ORDER).version());
        } finally {
            agent.close();
        }
        assertThat(agent.live.latest(ORDER)).as("the task is closed").isNull();
    }

    private static byte[] live(AgentDriver agent) {
        return agent.live.latest(ORDER);
    }

    private static byte[] stored(AgentDriver agent) {
        KeyValueStore<String, byte[]> store = agent.store(OrderAgent.ORDERS);
        return store.get(ORDER);
    }

    private static OrderState state(byte[] stored) {
        return OrderAgent.STATES.deserializer().deserialize(OrderAgent.ORDERS, stored);
    }
}
