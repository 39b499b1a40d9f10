package io.orderflow.processor.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.orderflow.processor.order.OrderFact;
import io.orderflow.processor.order.OrderState;
import io.orderflow.processor.streams.OrderAgent;
import io.orderflow.schemas.model.OrderStatus;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Orders started and ended, by flow (and end status), counted where the agent applies a decision's facts: an order
 * starts with its {@link OrderFact.OrderStarted} fact and ends when a state that was not terminal becomes terminal
 * ({@code completed}, {@code declined}, {@code cancelled}, {@code failed}, {@code rolled_back}); a {@code cancelled}
 * order that later rolls back ends once. Counted as applied: a record whose exactly-once transaction aborts and is
 * processed again counts again, which only a crash or a failing record causes.
 *
 * <p>Incidents are counted the same way, by the {@link OrderFact.IncidentRaised} fact that sets an order aside.
 *
 * <p>Meters: {@code orderflow.orders.started{flow}}, {@code orderflow.orders.ended{flow,status}} and
 * {@code orderflow.incidents{source}} (the service that could not process the record), and the time from start to end
 * {@code orderflow.orders.duration{flow}}, a histogram for percentiles over any window. A counter is
 * made on a flow's first order and found by a map lookup after that, so the stream thread allocates nothing per order.
 */
public final class OrderMeters {

    static final String STARTED = "orderflow.orders.started";
    static final String ENDED = "orderflow.orders.ended";
    static final String INCIDENTS = "orderflow.incidents";
    static final String DURATION = "orderflow.orders.duration";

    private final MeterRegistry registry;
    private final Map<String, Counter> started = new ConcurrentHashMap<>();
    private final Map<String, Map<OrderStatus, Counter>> ended = new ConcurrentHashMap<>();
    private final Map<String, Counter> incidents = new ConcurrentHashMap<>();
    private final Map<String, Timer> durations = new ConcurrentHashMap<>();

    public OrderMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** {@code applier}, counting the starts and ends of what it applies. */
    public OrderAgent.Applier observing(OrderAgent.Applier applier) {
        return (before, facts, now) -> {
            OrderState after = applier.applyAll(before, facts, now);
            observe(before, facts, after);
            return after;
        };
    }

    void observe(OrderState before, List<OrderFact> facts, OrderState after) {
        if (after == null) {
            return;
        }
        for (OrderFact fact : facts) {
            if (fact instanceof OrderFact.OrderStarted) {
                started.computeIfAbsent(flowOf(after), flow -> Counter.builder(STARTED)
                        .description("Orders started").tag("flow", flow).register(registry)).increment();
            } else if (fact instanceof OrderFact.IncidentRaised incident) {
                // "order-processor run report node_detail" -> "order-processor": a bounded set of tag values
                String service = incident.source().split(" ", 2)[0];
                incidents.computeIfAbsent(service, source -> Counter.builder(INCIDENTS)
                        .description("Orders set aside because a record about them could not be processed")
                        .tag("source", source).register(registry)).increment();
            }
        }
        boolean wasOpen = before == null || before.status() == null || !before.status().terminal();
        if (wasOpen && after.status() != null && after.status().terminal()) {
            String flow = flowOf(after);
            ended.computeIfAbsent(flow, f -> new ConcurrentHashMap<>())
                    .computeIfAbsent(after.status(), status -> Counter.builder(ENDED)
                            .description("Orders that reached an end status").tag("flow", flow)
                            .tag("status", status.wire()).register(registry))
                    .increment();
            durations.computeIfAbsent(flow, f -> Timer.builder(DURATION)
                            .description("Time from an order's start to its end status").tag("flow", f)
                            .publishPercentileHistogram().register(registry))
                    .record(Math.max(0, after.updatedAt() - after.createdAt()), TimeUnit.MILLISECONDS);
        }
    }

    private static String flowOf(OrderState state) {
        return state.flow() != null && state.flow().flowId() != null ? state.flow().flowId() : "unknown";
    }
}
