package io.orderflow.kafka.embedded;

import com.yammer.metrics.core.Histogram;
import com.yammer.metrics.core.Metric;
import com.yammer.metrics.core.MetricName;
import com.yammer.metrics.core.MetricsRegistryListener;
import com.yammer.metrics.stats.ExponentiallyDecayingSample;
import com.yammer.metrics.stats.UniformSample;
import java.lang.reflect.Field;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.server.metrics.KafkaYammerMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives the in-process broker's Yammer histograms (its request times and sizes, about 750 of them) a uniform sample in
 * place of the exponentially decaying one Kafka asks for.
 *
 * <p>Why: the decaying sample keeps its values in a {@code ConcurrentSkipListMap} that takes a new node on almost every
 * update, about eight updates per broker request. Each new node is linked from an old one somewhere in the old
 * generation, so every young collection of this JVM (which the broker shares with the services) would scan some
 * 10,000 dirty cards for them: three quarters of the cards it scans, and two fifths of the pause (measured
 * 2026-11-24; see docs/performance.md, "Uniform request histograms in the embedded broker"). {@link UniformSample}
 * keeps its values in a {@code long} array and links nothing. The histograms still count, and still give
 * percentiles, sampled uniformly over the broker's life instead of weighted to the last minutes; the embedded
 * broker's JMX is not what anyone monitors.
 *
 * <p>Kafka's API has no way to choose the sample, so the histogram's {@code final} field is set by reflection, on each
 * histogram the registry announces. If the JVM refuses that (a future release may, see JEP 500), the broker keeps its
 * samples and this says so once.
 */
final class UniformRequestHistograms implements MetricsRegistryListener {

    private static final Logger log = LoggerFactory.getLogger(UniformRequestHistograms.class);
    /** Yammer's default reservoir size, as the decaying sample has. */
    private static final int RESERVOIR_SIZE = 1028;
    private static final AtomicBoolean installed = new AtomicBoolean();

    private final Field sample;
    private volatile boolean working = true;

    private UniformRequestHistograms(Field sample) {
        this.sample = sample;
    }

    /**
     * Listens to the JVM-wide broker registry, once per JVM: the registry announces the histograms it holds now, and
     * then each new one (a broker started again in the same JVM makes new ones).
     */
    static void install() {
        if (!installed.compareAndSet(false, true)) {
            return;
        }
        try {
            Field sample = Histogram.class.getDeclaredField("sample");
            sample.setAccessible(true);
            KafkaYammerMetrics.defaultRegistry().addListener(new UniformRequestHistograms(sample));
        } catch (ReflectiveOperationException | RuntimeException e) {
            log.info("The broker's histograms keep their exponentially decaying samples: {}", e.toString());
        }
    }

    @Override
    public void onMetricAdded(MetricName name, Metric metric) {
        if (working && metric instanceof Histogram histogram) {
            try {
                if (sample.get(histogram) instanceof ExponentiallyDecayingSample) {
                    sample.set(histogram, new UniformSample(RESERVOIR_SIZE));
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                working = false;
                log.info("The broker's histograms keep their exponentially decaying samples: {}", e.toString());
            }
        }
    }

    @Override
    public void onMetricRemoved(MetricName name) {
        // nothing held
    }
}
