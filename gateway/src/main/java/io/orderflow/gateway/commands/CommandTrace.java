package io.orderflow.gateway.commands;

import io.micrometer.observation.Observation;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.TracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import io.orderflow.kafka.tracing.TraceHeaders;
import java.util.HashMap;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;
import reactor.util.context.ContextView;

/**
 * The trace context a command carries on {@code order-commands}: that of the HTTP request it answers (Spring's server
 * observation honours the request's {@code traceparent}, or starts a trace), read from the request's Reactor context;
 * for a command sent outside a request (mail intake, the chat's model loop), a new trace's. Null when tracing is off.
 */
@Component
public class CommandTrace {

    private final Tracer tracer;
    private final Propagator propagator;

    public CommandTrace(ObjectProvider<Tracer> tracer, ObjectProvider<Propagator> propagator) {
        this.tracer = tracer.getIfAvailable();
        this.propagator = propagator.getIfAvailable();
    }

    /** The {@code traceparent} to send with a command sent in {@code context}, or null. */
    public String traceparent(ContextView context) {
        if (tracer == null || propagator == null) {
            return null;
        }
        TraceContext trace = requestTrace(context);
        if (trace == null) {
            Span current = tracer.currentSpan();
            trace = current == null ? null : current.context();
        }
        if (trace == null) {
            Span root = tracer.nextSpan().name("order-command").start();
            trace = root.context();
            root.end();
        }
        Map<String, String> carrier = new HashMap<>(4);
        propagator.inject(trace, carrier, Map::put);
        String traceparent = carrier.get(TraceHeaders.TRACEPARENT);
        return TraceHeaders.traceId(traceparent) == null ? null : traceparent;
    }

    private static TraceContext requestTrace(ContextView context) {
        Observation observation = context.getOrDefault(ObservationThreadLocalAccessor.KEY, null);
        if (observation == null || observation.isNoop()) {
            return null;
        }
        TracingObservationHandler.TracingContext tracing =
                observation.getContextView().get(TracingObservationHandler.TracingContext.class);
        Span span = tracing == null ? null : tracing.getSpan();
        return span == null ? null : span.context();
    }
}
