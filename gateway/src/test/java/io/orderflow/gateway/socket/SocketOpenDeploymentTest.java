package io.orderflow.gateway.socket;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.gateway.orders.OrderIds;
import io.orderflow.gateway.testing.FakeProcessor.FakeOrder;
import io.orderflow.gateway.testing.GatewayDeployment;
import io.orderflow.schemas.commands.CommandEnvelope;
import io.orderflow.schemas.commands.OrderCommand;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;

/**
 * The order socket on an open deployment (no shared password, nobody registered): no credentials are needed, there is
 * no session to re-check, and the caller acts as an operator whose {@code by} is honoured, as in the REST routes.
 */
class SocketOpenDeploymentTest {

    private static GatewayDeployment deployment;

    @BeforeAll
    static void deployment() {
        deployment = new GatewayDeployment(null);
        deployment.startInstance();
    }

    @AfterAll
    static void stop() {
        deployment.close();
    }

    @Test
    void open_use_needs_no_credentials_and_decides_as_by_then_cancels() {
        String order = OrderIds.random();
        deployment.processor.put(new FakeOrder(order, "storefront_order", "fp", "waiting", null, "approval", 0));
        try (SocketClient socket = SocketClient.open(deployment.url(0), order, new HttpHeaders())) {
            assertThat(socket.nextState().get("orderId").asString()).isEqualTo(order);
            assertThat(socket.call("decide", "{\"nodeId\": \"approval\", \"decision\": \"approved\", "
                    + "\"by\": \"dana\"}").get("result").get("ok").asBoolean()).isTrue();
            assertThat(socket.call("cancel", "{}").get("result").get("ok").asBoolean()).isTrue();
        }
        assertThat(deployment.processor.received().stream().map(CommandEnvelope::command)
                .filter(command -> command.orderId().equals(order)).toList()).containsExactly(
                new OrderCommand.DecideApproval(order, "approval", "approved", "dana", null),
                new OrderCommand.CancelOrder(order, "Cancelled by operator"));
    }
}
