package io.orderflow.gateway.system;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;

class SystemControllerTest {

    private final PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final SystemController controller = controllerReading(meters);

    @Test
    void anApplicationRestoringItsStoresIsListedWithItsRecordsUntilItRuns() {
        AtomicLong restored = new AtomicLong(120_000);
        AtomicLong total = new AtomicLong(290_000);
        restoreGauges("order-processor", restored, total);
        restoreGauges("flow-runner", new AtomicLong(), new AtomicLong());

        assertThat(restores()).containsExactly(
                Map.of("application", "order-processor", "restored", 120_000L, "total", 290_000L));

        restored.set(0);
        total.set(0);
        assertThat(restores()).isEmpty();
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> restores() {
        return (List<Map<String, Object>>) controller.system().block().get("restores");
    }

    private void restoreGauges(String application, AtomicLong restored, AtomicLong total) {
        Gauge.builder("orderflow.streams.restore", restored, AtomicLong::get).tag("application", application)
                .tag("records", "restored").baseUnit("records").register(meters);
        Gauge.builder("orderflow.streams.restore", total, AtomicLong::get).tag("application", application)
                .tag("records", "total").baseUnit("records").register(meters);
    }

    private static SystemController controllerReading(PrometheusMeterRegistry meters) {
        StaticListableBeanFactory beans = new StaticListableBeanFactory();
        beans.addBean("systemScrape", (SystemScrape) () -> meters.getPrometheusRegistry().scrape());
        return new SystemController(beans.getBeanProvider(HealthEndpoint.class),
                beans.getBeanProvider(SystemScrape.class), beans.getBeanProvider(PrometheusRegistry.class));
    }
}
