package io.orderflow.kafka.tracing;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.MDC;

/**
 * The order's W3C trace context on its Kafka records, and its ids in the log's MDC. Every record an order causes
 * carries the {@code traceparent} header of the record (or HTTP request) that caused it: the gateway sets it on
 * {@code order-commands}, and each service copies it from the record it handles onto the records it writes, so one
 * trace id follows the order through the processor, the runner and the dispatcher to the webhook request.
 *
 * <p>Copying the header is all the Kafka Streams apps do: no span per record, no tracer on the stream threads. The
 * parent span of every hop is then the one that started the order (the gateway's request), which a tracing backend
 * shows as one trace. While a record is handled, {@link #logContext} puts {@value #TRACE_ID}, {@value #SPAN_ID} and
 * {@value #ORDER_ID} into the MDC, so the text log's correlation pattern and the JSON log's members carry them.
 */
public final class TraceHeaders {

    /** The W3C Trace Context header, on Kafka records as on HTTP requests. */
    public static final String TRACEPARENT = "traceparent";
    /** The MDC keys: the same names Micrometer Tracing uses for the trace and span, and the order's id. */
    public static final String TRACE_ID = "traceId";
    public static final String SPAN_ID = "spanId";
    public static final String ORDER_ID = "orderId";

    /** {@code version-traceid-parentid-flags}: 2 + 32 + 16 + 2 hex digits and three dashes. */
    private static final int LENGTH = 55;
    private static final HexFormat HEX = HexFormat.of();
    private static final LogContext NO_CONTEXT = () -> {
    };

    private TraceHeaders() {
    }

    /** The {@code traceparent} of {@code headers} when it is a well-formed version-00 one; null otherwise. */
    public static String traceparent(Headers headers) {
        if (headers == null) {
            return null;
        }
        Header header = headers.lastHeader(TRACEPARENT);
        if (header == null || header.value() == null || header.value().length != LENGTH) {
            return null;
        }
        String value = new String(header.value(), StandardCharsets.ISO_8859_1);
        return valid(value) ? value : null;
    }

    /**
     * Headers holding only the {@code traceparent} of {@code from} (none when it has none): what a record written
     * because of {@code from} carries. A new instance each time, since a producer makes the headers it sends
     * read-only.
     */
    public static Headers carried(Headers from) {
        Header header = from == null ? null : from.lastHeader(TRACEPARENT);
        return header == null ? new RecordHeaders() : new RecordHeaders(new Header[] {header});
    }

    /** Headers holding {@code traceparent}; none when it is null. A new instance each time. */
    public static Headers of(String traceparent) {
        return traceparent == null
                ? new RecordHeaders()
                : new RecordHeaders(new Header[] {
                        new RecordHeader(TRACEPARENT, traceparent.getBytes(StandardCharsets.ISO_8859_1))});
    }

    /** Adds (or replaces) the {@code traceparent} of {@code headers}; nothing when it is null. */
    public static void set(Headers headers, String traceparent) {
        if (traceparent != null) {
            headers.remove(TRACEPARENT);
            headers.add(TRACEPARENT, traceparent.getBytes(StandardCharsets.ISO_8859_1));
        }
    }

    /**
     * A new trace context, {@code 00-<random trace id>-<random parent id>-00}: for a request that must carry one
     * when what caused it came without (not sampled, since no span of it is recorded here).
     */
    public static String newTraceparent() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        String traceparent;
        do {
            traceparent = "00-" + HEX.toHexDigits(random.nextLong()) + HEX.toHexDigits(random.nextLong()) + '-'
                    + HEX.toHexDigits(random.nextLong()) + "-00";
        } while (!valid(traceparent)); // an all-zero id is not allowed
        return traceparent;
    }

    /** The trace context of {@code traceparent} when it is well-formed, otherwise a new one. */
    public static String orNew(String traceparent) {
        return traceparent != null && valid(traceparent) ? traceparent : newTraceparent();
    }

    /** The trace id of a well-formed {@code traceparent}, or null. */
    public static String traceId(String traceparent) {
        return traceparent != null && valid(traceparent) ? traceparent.substring(3, 35) : null;
    }

    /**
     * Puts the order's id and the trace's ids (when {@code traceparent} is well-formed) into the MDC until the answer
     * is closed, which puts back what was there before. Null arguments leave their keys as they are.
     */
    public static LogContext logContext(String orderId, String traceparent) {
        String traceId = traceId(traceparent);
        if (orderId == null && traceId == null) {
            return NO_CONTEXT;
        }
        String orderBefore = orderId == null ? null : MDC.get(ORDER_ID);
        String traceBefore = traceId == null ? null : MDC.get(TRACE_ID);
        String spanBefore = traceId == null ? null : MDC.get(SPAN_ID);
        if (orderId != null) {
            MDC.put(ORDER_ID, orderId);
        }
        if (traceId != null) {
            MDC.put(TRACE_ID, traceId);
            MDC.put(SPAN_ID, traceparent.substring(36, 52));
        }
        return () -> {
            if (orderId != null) {
                restore(ORDER_ID, orderBefore);
            }
            if (traceId != null) {
                restore(TRACE_ID, traceBefore);
                restore(SPAN_ID, spanBefore);
            }
        };
    }

    /** The MDC entries of {@link #logContext}, taken out again on close; closing throws nothing. */
    @FunctionalInterface
    public interface LogContext extends AutoCloseable {

        @Override
        void close();
    }

    private static void restore(String key, String before) {
        if (before == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, before);
        }
    }

    /**
     * Version {@code 00}: lower-case hex fields in their places, a trace id and a parent id not all zeros. Linear in
     * the fixed length; anything else (another version, a longer value) is treated as absent.
     */
    static boolean valid(String value) {
        if (value.length() != LENGTH || value.charAt(0) != '0' || value.charAt(1) != '0' || value.charAt(2) != '-'
                || value.charAt(35) != '-' || value.charAt(52) != '-') {
            return false;
        }
        boolean traceZero = true;
        boolean parentZero = true;
        for (int i = 3; i < LENGTH; i++) {
            if (i == 35 || i == 52) {
                continue;
            }
            char c = value.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
            if (c != '0') {
                if (i < 35) {
                    traceZero = false;
                } else if (i < 52) {
                    parentZero = false;
                }
            }
        }
        return !traceZero && !parentZero;
    }
}
