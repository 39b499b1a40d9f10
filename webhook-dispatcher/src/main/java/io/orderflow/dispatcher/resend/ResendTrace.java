package io.orderflow.dispatcher.resend;

import io.orderflow.kafka.tracing.TraceHeaders;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The {@code traceparent} of a delivery sent again (a replay or a redelivery): a new span in the trace it was first
 * sent in, so a tracing backend shows the resend as its own hop of the order's trace rather than the first request
 * again; a new trace where none is known.
 */
final class ResendTrace {

    private static final HexFormat HEX = HexFormat.of();

    private ResendTrace() {
    }

    /**
     * {@code 00-<trace id of original>-<new parent id>-<flags of original>} when {@code original} is a well-formed
     * trace context (the sampling decision of the trace goes on with it); otherwise a new trace.
     */
    static String newSpanIn(String original) {
        String traceId = TraceHeaders.traceId(original);
        if (traceId == null) {
            return TraceHeaders.newTraceparent();
        }
        String spanId;
        do {
            spanId = HEX.toHexDigits(ThreadLocalRandom.current().nextLong());
        } while (spanId.equals("0000000000000000") || spanId.equals(original.substring(36, 52)));
        return "00-" + traceId + '-' + spanId + '-' + original.substring(53);
    }
}
