package io.orderflow.kafka.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

class TraceHeadersTest {

    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @Test
    void aWellFormedTraceparentIsReadAndCarriedAlone() {
        Headers headers = new RecordHeaders();
        headers.add("other", "x".getBytes(StandardCharsets.UTF_8));
        headers.add(TraceHeaders.TRACEPARENT, TRACEPARENT.getBytes(StandardCharsets.US_ASCII));

        assertThat(TraceHeaders.traceparent(headers)).isEqualTo(TRACEPARENT);
        assertThat(TraceHeaders.traceId(TRACEPARENT)).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        Headers carried = TraceHeaders.carried(headers);
        assertThat(carried.toArray()).hasSize(1);
        assertThat(TraceHeaders.traceparent(carried)).isEqualTo(TRACEPARENT);
        assertThat(carried).as("a new instance each time").isNotSameAs(TraceHeaders.carried(headers));
        assertThat(TraceHeaders.carried(new RecordHeaders()).toArray()).isEmpty();
        assertThat(TraceHeaders.of(null).toArray()).isEmpty();
    }

    @Test
    void anythingButAWellFormedVersion00TraceparentCountsAsNone() {
        for (String bad : new String[] {
                "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
                "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
                "00-4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7-01",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
                ""}) {
            assertThat(TraceHeaders.traceparent(TraceHeaders.of(bad))).as(bad).isNull();
            assertThat(TraceHeaders.traceId(bad)).as(bad).isNull();
        }
    }

    @Test
    void aNewTraceContextIsWellFormedAndItsOwn() {
        String first = TraceHeaders.newTraceparent();
        String second = TraceHeaders.newTraceparent();

        assertThat(first).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-00");
        assertThat(TraceHeaders.traceparent(TraceHeaders.of(first))).isEqualTo(first);
        assertThat(TraceHeaders.traceId(second)).isNotEqualTo(TraceHeaders.traceId(first));
        assertThat(TraceHeaders.orNew(TRACEPARENT)).isEqualTo(TRACEPARENT);
        assertThat(TraceHeaders.orNew(null)).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-00");
        assertThat(TraceHeaders.traceId(TraceHeaders.orNew("00-00000000000000000000000000000000-00f067aa0ba902b7-01")))
                .as("a malformed one is replaced").isNotNull().isNotEqualTo("00000000000000000000000000000000");
    }

    @Test
    void theLogContextPutsTheIdsIntoTheMdcAndPutsBackWhatWasThere() {
        MDC.put(TraceHeaders.ORDER_ID, "ord_outer");
        try {
            try (TraceHeaders.LogContext ignored = TraceHeaders.logContext("ord_1", TRACEPARENT)) {
                assertThat(MDC.get(TraceHeaders.ORDER_ID)).isEqualTo("ord_1");
                assertThat(MDC.get(TraceHeaders.TRACE_ID)).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
                assertThat(MDC.get(TraceHeaders.SPAN_ID)).isEqualTo("00f067aa0ba902b7");
            }
            assertThat(MDC.get(TraceHeaders.ORDER_ID)).isEqualTo("ord_outer");
            assertThat(MDC.get(TraceHeaders.TRACE_ID)).isNull();
            assertThat(MDC.get(TraceHeaders.SPAN_ID)).isNull();

            try (TraceHeaders.LogContext ignored = TraceHeaders.logContext("ord_2", "not a traceparent")) {
                assertThat(MDC.get(TraceHeaders.ORDER_ID)).isEqualTo("ord_2");
                assertThat(MDC.get(TraceHeaders.TRACE_ID)).isNull();
            }
        } finally {
            MDC.clear();
        }
    }
}
