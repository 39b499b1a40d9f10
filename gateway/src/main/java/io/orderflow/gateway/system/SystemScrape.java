package io.orderflow.gateway.system;

import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * The meters {@code GET /api/v1/system} reads: by default the gateway's own registry; the standalone system provides
 * one that scrapes the four services' registries together, as its {@code /actuator/prometheus} does.
 */
@FunctionalInterface
public interface SystemScrape {

    MetricSnapshots scrape();
}
