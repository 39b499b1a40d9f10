package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.gateway.commands.CommandReplies;
import io.orderflow.processor.order.Rejection;
import io.orderflow.schemas.commands.RejectionKind;
import org.junit.jupiter.api.Test;

/**
 * The status the order's agent writes beside a rejection's kind, for a gateway that reads no kind, is the status the
 * gateway answers that kind with: a gateway of either age answers a refusal alike.
 */
class RejectionStatusTest {

    @Test
    void the_agents_status_of_each_kind_is_the_gateways() {
        for (RejectionKind kind : RejectionKind.values()) {
            assertThat(new Rejection(kind, "refused").compatibleStatus()).as(kind.name())
                    .isEqualTo(CommandReplies.status(kind).value());
        }
    }
}
