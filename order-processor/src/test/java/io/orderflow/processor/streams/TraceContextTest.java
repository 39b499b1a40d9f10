package io.orderflow.processor.streams;

import static io.orderflow.processor.streams.Fixtures.ORDER;
import static io.orderflow.processor.streams.Fixtures.start;
import static io.orderflow.processor.streams.Reports.approvalWait;
import static io.orderflow.processor.streams.Reports.progress;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.orderflow.kafka.tracing.TraceHeaders;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.tasks.NodeTask;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The agent passes the trace context of the record it processes on to every record that causes, and to the timers it
 * sets, whose firing sends records with it; its log lines meanwhile carry the order's and the trace's ids.
 */
class TraceContextTest {

    private static final String STARTED = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private static final String REPORTED = "00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-01";

    private final AgentDriver agent = new AgentDriver();

    @AfterEach
    void close() {
        agent.close();
    }

    @Test
    void everyRecordACommandCausesCarriesItsTraceparent() {
        agent.command(start(ORDER), TraceHeaders.of(STARTED));

        List<TestRecord<String, ?>> sent = agent.sent();
        assertThat(sent).extracting(record -> record.value().getClass().getSimpleName())
                .contains("CommandReply", "StartRun", "OrderUpdate");
        assertThat(sent).allSatisfy(record ->
                assertThat(TraceHeaders.traceparent(record.headers())).isEqualTo(STARTED));
    }

    @Test
    void aReportsRecordsCarryTheReportsTraceparentAndARecordWithoutOneCausesRecordsWithout() {
        agent.command(start(ORDER), new RecordHeaders());
        assertThat(agent.sent()).isNotEmpty().allSatisfy(record -> assertThat(record.headers().toArray()).isEmpty());

        agent.report(progress(1, 1, OrderStatus.COMPLETED), TraceHeaders.of(REPORTED));

        List<TestRecord<String, ?>> sent = agent.sent();
        assertThat(sent).extracting(record -> record.value().getClass().getSimpleName())
                .contains("OrderUpdate");
        assertThat(sent).allSatisfy(record ->
                assertThat(TraceHeaders.traceparent(record.headers())).isEqualTo(REPORTED));
    }

    @Test
    void aDeadlineFiresWithTheTraceparentOfTheReportThatOpenedItsWait() {
        agent.command(start(ORDER), TraceHeaders.of(STARTED));
        agent.report(progress(1, 1, OrderStatus.WAITING), TraceHeaders.of(STARTED));
        agent.report(approvalWait(Duration.ofDays(2).toMillis(), agent.now()), TraceHeaders.of(REPORTED));
        agent.sent();
        assertThat(agent.timers()).singleElement().satisfies(due -> assertThat(due.traceparent()).isEqualTo(REPORTED));

        agent.advance(Duration.ofMinutes(2));

        List<TestRecord<String, ?>> sent = agent.sent();
        assertThat(sent).extracting(TestRecord::value).anySatisfy(value ->
                assertThat(value).isInstanceOf(NodeTask.ResumeNode.class));
        assertThat(sent).allSatisfy(record ->
                assertThat(TraceHeaders.traceparent(record.headers())).isEqualTo(REPORTED));
    }

    @Test
    void linesLoggedWhileACommandIsProcessedCarryTheOrderAndTraceIds() {
        Logger logger = (Logger) LoggerFactory.getLogger(OrderAgent.class);
        Level before = logger.getLevel();
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        logger.addAppender(lines);
        logger.setLevel(Level.DEBUG);
        try {
            agent.command(start(ORDER), TraceHeaders.of(STARTED));
        } finally {
            logger.setLevel(before);
            logger.detachAppender(lines);
        }

        assertThat(lines.list).isNotEmpty().allSatisfy(line -> {
            assertThat(line.getMDCPropertyMap()).containsEntry(TraceHeaders.ORDER_ID, ORDER)
                    .containsEntry(TraceHeaders.TRACE_ID, "4bf92f3577b34da6a3ce929d0e0e4736")
                    .containsEntry(TraceHeaders.SPAN_ID, "00f067aa0ba902b7");
        });
        assertThat(org.slf4j.MDC.get(TraceHeaders.TRACE_ID)).as("taken out again").isNull();
    }
}
