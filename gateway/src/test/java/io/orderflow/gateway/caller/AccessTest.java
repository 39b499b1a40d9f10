package io.orderflow.gateway.caller;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.schemas.commands.Caller;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The checks beyond the route table; the route table itself is AuthMatrixTest's. */
class AccessTest {

    private static final Caller VIEWER = new Caller("token", "token:v", "viewer");
    private static final Caller APPROVER = new Caller("person", "a@b.c", "approver");
    private static final Caller OPERATOR = new Caller("password", null, "operator");

    @Test
    void only_operators_deliver_from_the_chat_see_delivery_refusals_and_readiness() {
        for (Caller below : List.of(VIEWER, APPROVER)) {
            assertThat(Access.mayDeliverFromChat(below)).isFalse();
            assertThat(Access.seesDeliveryRefusals(below)).isFalse();
            assertThat(Access.seesReadiness(below)).isFalse();
        }
        assertThat(Access.mayDeliverFromChat(OPERATOR)).isTrue();
        assertThat(Access.seesDeliveryRefusals(OPERATOR)).isTrue();
        assertThat(Access.seesReadiness(Caller.OPEN)).isTrue();
    }

    @Test
    void a_socket_method_needs_its_role_or_a_higher_one() {
        assertThat(Access.mayCall(VIEWER, Role.APPROVER)).isFalse();
        assertThat(Access.mayCall(APPROVER, Role.APPROVER)).isTrue();
        assertThat(Access.mayCall(APPROVER, Role.OPERATOR)).isFalse();
        assertThat(Access.mayCall(OPERATOR, Role.APPROVER)).isTrue();
    }
}
