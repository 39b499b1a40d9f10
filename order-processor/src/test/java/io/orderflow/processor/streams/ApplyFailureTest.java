package io.orderflow.processor.streams;

import io.orderflow.processor.TestSettings;
import io.orderflow.processor.approvals.ApprovalRow;
import io.orderflow.processor.order.OrderApplier;
import io.orderflow.schemas.commands.CommandReply;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.commands.RejectionKind;
import io.orderflow.schemas.model.OrderStatus;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.LogAndFailProcessingExceptionHandler;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Properties;

import static io.orderflow.processor.streams.Fixtures.ORDER;
import static io.orderflow.processor.streams.Fixtures.start;
import static io.orderflow.processor.streams.Reports.approvalWait;
import static io.orderflow.processor.streams.Reports.progress;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A decision's facts are applied before its effects are sent: when applying fails, nothing goes out. A command is
 * answered with the error and changes nothing; a report that cannot be applied, even as an incident, fails the record,
 * so the exactly-once transaction aborts instead of committing tasks without the state that explains them.
 */
class ApplyFailureTest {

    private static final String BROKEN = "applier broke";

    /** Applies like production until {@code failing} is set: then applying throws. */
    private boolean failing;
    private final AgentDriver agent = new AgentDriver((before, facts, now) -> {
        if (failing) {
            throw new IllegalStateException(BROKEN);
        }
        return OrderApplier.applyAll(before, facts, now);
    });

    @AfterEach
    void close() {
        agent.close();
    }

    @Test
    void whenApplyingACancelFailsItIsAnsweredWithTheErrorAndNothingElseIsSent() {
        // given an order waiting for an approval
        agent.command(start(ORDER));
        agent.report(progress(1, 1, OrderStatus.WAITING));
        agent.report(approvalWait(Duration.ofDays(2).toMillis(), agent.now()));
        agent.drain();

        // when applying the cancel's facts throws
        failing = true;
        CommandReply reply = agent.command(new OrderCommand.CancelOrder(ORDER, "changed my mind"));

        // then the caller is told, after the attempts the agent makes
        assertThat(reply.kind()).isEqualTo(RejectionKind.PROCESSING_ERROR);
        assertThat(reply.body().get("error").asString()).isEqualTo("Engine error: " + BROKEN);

        // and nothing was carried out: no terminate task, no order.cancelled event, the approval row still pending, its
        // deadline still set, the stored order as it was
        assertThat(agent.tasks()).isEmpty();
        assertThat(agent.events()).isEmpty();
        assertThat(agent.updates()).isEmpty();
        assertThat(agent.approval(ORDER, "approve").status()).isEqualTo(ApprovalRow.PENDING);
        assertThat(agent.timers()).hasSize(1);
        assertThat(agent.state(ORDER).status()).isEqualTo(OrderStatus.WAITING);
    }

    @Test
    void whenApplyingAReportFailsNoTaskGoesOut() {
        // given a started order, its start task already sent
        agent.command(start(ORDER));
        agent.drain();

        // when the report that would make it failed (and start the rollback poll) cannot be applied
        failing = true;
        assertThatThrownBy(() -> agent.report(progress(1, 1, OrderStatus.FAILED)))
                .hasStackTraceContaining(BROKEN);

        // then no instance-status query was sent for a failure the state does not record
        assertThat(agent.tasks()).isEmpty();
        assertThat(agent.timers()).isEmpty();
    }

    @Test
    void theProcessorFailsARecordItCannotProcessInsteadOfSkippingIt() {
        Properties props = new OrderStreams(TestSettings.processor()).properties(new HostInfo("localhost", 8081));

        assertThat(props.get(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG))
                .isEqualTo(LogAndFailProcessingExceptionHandler.class);
    }

}
