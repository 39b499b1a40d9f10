package io.orderflow.dispatcher.resend;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.kafka.tracing.TraceHeaders;
import org.junit.jupiter.api.Test;

class ResendTraceTest {

    private static final String SAMPLED = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private static final String NOT_SAMPLED = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00";

    @Test
    void aResendIsANewSpanInTheTraceItWasSentInWithItsSamplingDecision() {
        String resent = ResendTrace.newSpanIn(SAMPLED);
        assertThat(TraceHeaders.orNew(resent)).isEqualTo(resent); // well-formed
        assertThat(TraceHeaders.traceId(resent)).isEqualTo(TraceHeaders.traceId(SAMPLED));
        assertThat(resent.substring(36, 52)).isNotEqualTo(SAMPLED.substring(36, 52)).isNotEqualTo("0".repeat(16));
        assertThat(resent).endsWith("-01");
        assertThat(ResendTrace.newSpanIn(NOT_SAMPLED)).endsWith("-00");
        assertThat(ResendTrace.newSpanIn(SAMPLED)).isNotEqualTo(resent);
    }

    @Test
    void withoutAWellFormedContextTheResendStartsANewTrace() {
        for (String unknown : new String[] {null, "", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                "00-00000000000000000000000000000000-00f067aa0ba902b7-01"}) {
            String resent = ResendTrace.newSpanIn(unknown);
            assertThat(TraceHeaders.traceId(resent)).as("from %s", unknown).isNotNull()
                    .isNotEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        }
    }
}
