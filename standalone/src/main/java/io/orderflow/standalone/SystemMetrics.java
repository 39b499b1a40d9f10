package io.orderflow.standalone;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.StateSetSnapshot;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One scrape for the whole standalone system: the meters of the four services' registries as one set of metric
 * families. Each service's context has its own Micrometer registry whose meters carry its {@code service} tag, so the
 * same meter (a JVM one, say) appears once per service with a different label; Prometheus text allows a family only
 * once, so the families of the same name are merged into one with the data points of all. A family whose type differs
 * from the first registry's of that name keeps the first one's only.
 */
final class SystemMetrics implements MultiCollector {

    private final List<Supplier<PrometheusRegistry>> services;

    /** @param services the services' registries, looked up at each scrape (a context may not have started yet) */
    SystemMetrics(List<Supplier<PrometheusRegistry>> services) {
        this.services = List.copyOf(services);
    }

    /** A registry whose scrape is the whole system's: what the gateway's {@code /actuator/prometheus} serves. */
    static PrometheusRegistry registry(List<Supplier<PrometheusRegistry>> services) {
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new SystemMetrics(services));
        return registry;
    }

    @Override
    public MetricSnapshots collect() {
        Map<String, List<MetricSnapshot>> families = new LinkedHashMap<>();
        for (Supplier<PrometheusRegistry> service : services) {
            PrometheusRegistry registry = service.get();
            if (registry == null) {
                continue;
            }
            for (MetricSnapshot family : registry.scrape()) {
                families.computeIfAbsent(family.getMetadata().getPrometheusName(), name -> new ArrayList<>())
                        .add(family);
            }
        }
        List<MetricSnapshot> merged = new ArrayList<>(families.size());
        families.values().forEach(same -> merged.add(merged(same)));
        return new MetricSnapshots(merged);
    }

    private static MetricSnapshot merged(List<MetricSnapshot> same) {
        MetricSnapshot first = same.getFirst();
        if (same.size() == 1) {
            return first;
        }
        try {
            return switch (first) {
                case CounterSnapshot c -> new CounterSnapshot(c.getMetadata(),
                        points(same, CounterSnapshot.class, CounterSnapshot::getDataPoints));
                case GaugeSnapshot g -> new GaugeSnapshot(g.getMetadata(),
                        points(same, GaugeSnapshot.class, GaugeSnapshot::getDataPoints));
                case HistogramSnapshot h -> new HistogramSnapshot(h.isGaugeHistogram(), h.getMetadata(),
                        points(same, HistogramSnapshot.class, HistogramSnapshot::getDataPoints));
                case SummarySnapshot s -> new SummarySnapshot(s.getMetadata(),
                        points(same, SummarySnapshot.class, SummarySnapshot::getDataPoints));
                case InfoSnapshot i -> new InfoSnapshot(i.getMetadata(),
                        points(same, InfoSnapshot.class, InfoSnapshot::getDataPoints));
                case StateSetSnapshot s -> new StateSetSnapshot(s.getMetadata(),
                        points(same, StateSetSnapshot.class, StateSetSnapshot::getDataPoints));
                case UnknownSnapshot u -> new UnknownSnapshot(u.getMetadata(),
                        points(same, UnknownSnapshot.class, UnknownSnapshot::getDataPoints));
                default -> first;
            };
        } catch (IllegalArgumentException duplicateLabels) {
            // two services with the same labels on one data point (a meter without the service tag): keep the first's
            return first;
        }
    }

    private static <S extends MetricSnapshot, P> List<P> points(List<MetricSnapshot> same, Class<S> type,
                                                               Function<S, List<P>> dataPoints) {
        List<P> all = new ArrayList<>();
        for (MetricSnapshot family : same) {
            if (type.isInstance(family)) {
                all.addAll(dataPoints.apply(type.cast(family)));
            }
        }
        return all;
    }
}
