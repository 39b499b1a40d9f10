package io.orderflow.gateway.system;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.swagger.v3.oas.annotations.Operation;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.actuate.endpoint.CompositeHealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@code GET /api/v1/system} (operator): the system at a glance for the dashboard's System page, read from the same
 * meters Prometheus scrapes ({@link SystemScrape}) and the readiness group: each service's readiness and its parts,
 * orders started and ended with their rates, orders in flight by status, consumer lag by group and topic, the stores
 * a Kafka Streams application is restoring (records restored of the total), incidents by source and webhook
 * deliveries by outcome.
 *
 * <p>The rates are over the time since the oldest of the answers of the last minute ({@link #WINDOW_NANOS}), once
 * that is a second or more: a page that polls every few seconds sees the rate of the last minute; the first answer,
 * and the first after a minute without calls, has none.
 */
@RestController
class SystemController {

    static final long WINDOW_NANOS = 60_000_000_000L;

    private final ObjectProvider<HealthEndpoint> health;
    private final ObjectProvider<SystemScrape> scrape;
    private final ObjectProvider<PrometheusRegistry> own;
    private final LongSupplier nanos;
    private final Deque<Sample> samples = new ArrayDeque<>();

    @Autowired
    SystemController(ObjectProvider<HealthEndpoint> health, ObjectProvider<SystemScrape> scrape,
                     ObjectProvider<PrometheusRegistry> own) {
        this(health, scrape, own, System::nanoTime);
    }

    SystemController(ObjectProvider<HealthEndpoint> health, ObjectProvider<SystemScrape> scrape,
                     ObjectProvider<PrometheusRegistry> own, LongSupplier nanos) {
        this.health = health;
        this.scrape = scrape;
        this.own = own;
        this.nanos = nanos;
    }

    private record Sample(long at, double started, double ended) {
    }

    @Operation(operationId = "systemStatus",
            summary = "Readiness, orders, in-flight orders, consumer lag and incidents of the system (operator)")
    @GetMapping("/api/v1/system")
    Mono<Map<String, Object>> system() {
        // RouteRules admits operators only; the readiness checks may wait on Kafka (up to 2 s): off the event loop
        return Mono.fromCallable(this::answer).subscribeOn(Schedulers.boundedElastic());
    }

    private Map<String, Object> answer() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("at", System.currentTimeMillis());
        readiness(body);
        MetricSnapshots meters = meters();
        double started = sum(meters, "orderflow_orders_started");
        double ended = sum(meters, "orderflow_orders_ended");
        Map<String, Object> orders = new LinkedHashMap<>();
        orders.put("started", (long) started);
        orders.put("ended", (long) ended);
        Sample oldest = sample(new Sample(nanos.getAsLong(), started, ended));
        double seconds = oldest == null ? 0 : (nanos.getAsLong() - oldest.at()) / 1e9;
        orders.put("startedPerSecond", seconds < 1 ? null : round((started - oldest.started()) / seconds));
        orders.put("endedPerSecond", seconds < 1 ? null : round((ended - oldest.ended()) / seconds));
        orders.put("endedByStatus", byLabel(meters, "orderflow_orders_ended", "status"));
        orders.put("inFlight", byLabel(meters, "orderflow_orders_in_flight", "status"));
        body.put("orders", orders);
        body.put("lag", lag(meters));
        body.put("restores", restores(meters));
        body.put("incidents", byLabel(meters, "orderflow_incidents", "source"));
        body.put("nodeFailures", byLabel(meters, "orderflow_nodes_executions", "type", "result", "failed"));
        body.put("webhookDeliveries", byLabel(meters, "orderflow_webhook_deliveries", "outcome"));
        return body;
    }

    /** Keeps {@code now} and answers the oldest sample of the window, or null when there is none before it. */
    private synchronized Sample sample(Sample now) {
        while (!samples.isEmpty() && now.at() - samples.peekFirst().at() > WINDOW_NANOS) {
            samples.pollFirst();
        }
        Sample oldest = samples.peekFirst();
        samples.addLast(now);
        return oldest;
    }

    private void readiness(Map<String, Object> body) {
        HealthEndpoint endpoint = health.getIfAvailable();
        HealthDescriptor readiness = endpoint == null ? null : endpoint.healthForPath("readiness");
        List<Map<String, Object>> services = new ArrayList<>();
        Map<String, Object> gateway = new LinkedHashMap<>();
        gateway.put("name", "gateway");
        Map<String, String> gatewayParts = new LinkedHashMap<>();
        gateway.put("parts", gatewayParts);
        services.add(gateway);
        boolean up = readiness != null && "UP".equals(readiness.getStatus().getCode());
        if (readiness instanceof CompositeHealthDescriptor composite && composite.getComponents() != null) {
            composite.getComponents().forEach((name, part) -> {
                if (name.equals("services") && part instanceof CompositeHealthDescriptor behind
                        && behind.getComponents() != null) {
                    behind.getComponents().forEach((service, its) -> services.add(service(service, its)));
                } else {
                    gatewayParts.put(name, part.getStatus().getCode());
                }
            });
        }
        gateway.put("status", gatewayParts.values().stream().allMatch("UP"::equals) ? "UP" : "DOWN");
        body.put("status", up ? "ok" : "degraded");
        body.put("services", services);
    }

    private static Map<String, Object> service(String name, HealthDescriptor readiness) {
        Map<String, Object> service = new LinkedHashMap<>();
        service.put("name", name);
        service.put("status", readiness.getStatus().getCode());
        Map<String, String> parts = new LinkedHashMap<>();
        if (readiness instanceof IndicatedHealthDescriptor indicator && indicator.getDetails() != null) {
            indicator.getDetails().forEach((part, status) -> parts.put(part, String.valueOf(status)));
        }
        service.put("parts", parts);
        return service;
    }

    private MetricSnapshots meters() {
        SystemScrape system = scrape.getIfAvailable();
        if (system != null) {
            return system.scrape();
        }
        PrometheusRegistry registry = own.getIfAvailable();
        return registry == null ? MetricSnapshots.of() : registry.scrape();
    }

    private static List<Map<String, Object>> lag(MetricSnapshots meters) {
        Map<String, Map<String, Object>> rows = new TreeMap<>();
        points(meters, "orderflow_consumer_lag", (labels, value) -> {
            String group = labels.get("group");
            String topic = labels.get("topic");
            if (group != null && topic != null) {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("group", group);
                row.put("topic", topic);
                row.put("records", value.longValue());
                rows.put(group + "\u0000" + topic, row);
            }
        });
        return new ArrayList<>(rows.values());
    }

    /**
     * The Kafka Streams applications restoring their stores, each with the changelog records restored and to restore
     * since it last ran ({@code orderflow_streams_restore_records}; both 0 once it runs, and then it is not listed).
     */
    private static List<Map<String, Object>> restores(MetricSnapshots meters) {
        Map<String, Map<String, Object>> rows = new TreeMap<>();
        points(meters, "orderflow_streams_restore_records", (labels, value) -> {
            String application = labels.get("application");
            String records = labels.get("records");
            if (application != null && records != null) {
                rows.computeIfAbsent(application, name -> {
                    Map<String, Object> row = new LinkedHashMap<>();
                    row.put("application", name);
                    return row;
                }).put(records, value.longValue());
            }
        });
        return rows.values().stream().filter(row -> row.get("total") instanceof Long total && total > 0).toList();
    }

    /** The sum of a counter's or gauge's points by one label, those whose {@code filter} label has its value. */
    private static Map<String, Long> byLabel(MetricSnapshots meters, String name, String label, String... filter) {
        Map<String, Long> sums = new TreeMap<>();
        points(meters, name, (labels, value) -> {
            if (filter.length == 2 && !filter[1].equals(labels.get(filter[0]))) {
                return;
            }
            String key = labels.get(label);
            if (key != null) {
                sums.merge(key, Math.round(value), Long::sum);
            }
        });
        return sums;
    }

    private static double sum(MetricSnapshots meters, String name) {
        double[] total = {0};
        points(meters, name, (labels, value) -> total[0] += value);
        return total[0];
    }

    private interface Point {
        void accept(Labels labels, Double value);
    }

    private static void points(MetricSnapshots meters, String name, Point point) {
        for (MetricSnapshot family : meters) {
            if (!family.getMetadata().getPrometheusName().equals(name)) {
                continue;
            }
            for (DataPointSnapshot data : family.getDataPoints()) {
                switch (data) {
                    case CounterSnapshot.CounterDataPointSnapshot c -> point.accept(c.getLabels(), c.getValue());
                    case GaugeSnapshot.GaugeDataPointSnapshot g -> point.accept(g.getLabels(), g.getValue());
                    default -> {
                    }
                }
            }
        }
    }

    private static double round(double value) {
        return Math.round(value * 100) / 100.0;
    }
}
