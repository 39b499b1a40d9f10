package io.orderflow.processor.streams;

import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.commands.RejectionKind;
import io.orderflow.schemas.model.OrderStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.orderflow.processor.streams.Fixtures.ORDER;
import static io.orderflow.processor.streams.Fixtures.start;
import static io.orderflow.processor.streams.Reports.approvalWait;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every successful reply to a command on an order answers the version the order is at after it, and a change that names the
 * version it was based on is refused when the order has moved on, with nothing written.
 */
class ReadYourWritesTest {

    private final AgentDriver agent = new AgentDriver();

    @AfterEach
    void close() {
        agent.close();
    }

    @Test
    void givenAnOrderWaitingForApproval_whenApprovedOnTheVersionRead_thenTheReplyAnswersTheNextVersion() {
        CommandReply started = agent.command(start(ORDER));
        assertThat(started.body().get("version").asLong()).isEqualTo(1);
        agent.report(approvalWait(Duration.ofDays(1).toMillis(), agent.now()));
        long read = agent.state(ORDER).version();

        CommandReply approved = agent.command(new OrderCommand.DecideApproval(ORDER, "approve", "approved", "ann",
                null, read));

        assertThat(approved.status()).isEqualTo(200);
        assertThat(approved.body().get("version").asLong()).isEqualTo(read + 1)
                .isEqualTo(agent.state(ORDER).version());
        assertThat(agent.state(ORDER).waits()).isEmpty();
    }

    @Test
    void givenAnOrderThatChangedSinceItWasRead_whenCancelledOnTheOldVersion_then412AndNothingIsWritten() {
        agent.command(start(ORDER));
        long read = agent.state(ORDER).version();
        agent.report(approvalWait(Duration.ofDays(1).toMillis(), agent.now()));
        byte[] before = agent.<byte[]>store(OrderAgent.ORDERS).get(ORDER);

        CommandReply refused = agent.command(new OrderCommand.CancelOrder(ORDER, "stale", read));

        assertThat(refused.kind()).isEqualTo(RejectionKind.PRECONDITION_FAILED);
        assertThat(refused.status()).as("what a gateway that reads no kind answers").isEqualTo(412);
        assertThat(refused.body().get("error").asString()).isEqualTo("Order " + ORDER + " is at version "
                + (read + 1) + ", not " + read + ": it changed since it was read; read it again and retry");
        assertThat(refused.body().has("version")).isFalse();
        assertThat(agent.<byte[]>store(OrderAgent.ORDERS).get(ORDER)).isEqualTo(before);
        assertThat(agent.state(ORDER).status()).isNotEqualTo(OrderStatus.CANCELLED);
    }

    @Test
    void aCommandThatChangesNothingAnswersTheVersionAsItIs() {
        agent.command(start(ORDER));
        long version = agent.state(ORDER).version();

        CommandReply undelivered = agent.command(new OrderCommand.DeliverEvent(ORDER, "nobody.waits", null));

        assertThat(undelivered.body().get("delivered").asBoolean()).isFalse();
        assertThat(undelivered.body().get("version").asLong()).isEqualTo(version);
    }
}
