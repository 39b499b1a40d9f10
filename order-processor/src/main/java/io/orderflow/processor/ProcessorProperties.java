package io.orderflow.processor;

import java.time.Duration;

import io.orderflow.processor.order.AgentSettings;
import io.orderflow.kafka.KafkaSettings;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The processor's settings ({@code order-processor.yaml}, from environment variables with the spec's defaults).
 *
 * @param timeScale      {@code TIME_SCALE}, default 1440
 * @param webhookRetries {@code WEBHOOK_RETRIES}, default 5
 * @param orderRetention {@code ORDER_RETENTION}, default 30 days: how long an ended order is kept after its last change
 */
@ConfigurationProperties("orderflow")
public record ProcessorProperties(@DefaultValue KafkaSettings kafka, @DefaultValue("./data") String dataDir,
                                  @DefaultValue("1440") long timeScale, @DefaultValue("5") int webhookRetries,
                                  @DefaultValue Streams streams, @DefaultValue("30d") Duration orderRetention) {


    /**
     * @param applicationId  default {@code orderflow-order-processor}
     * @param stateDir       default {@code <data-dir>/order-processor/streams}
     * @param advertisedHost the host other instances reach this one at ({@code ADVERTISED_HOST}); blank: this
     *                       machine's host name
     * @param liveOrdersPerPartition the orders each active task keeps as written last, for reads without the store's
     *                       lock ({@code LIVE_ORDERS_PER_PARTITION}, {@link io.orderflow.processor.streams.LiveOrders})
     */
    public record Streams(@DefaultValue("orderflow-order-processor") String applicationId, String stateDir,
                          String advertisedHost, @DefaultValue("20") long commitIntervalMs,
                          @DefaultValue("128") int liveOrdersPerPartition) {
    }

    public AgentSettings agentSettings() {
        return new AgentSettings(timeScale, webhookRetries, orderRetention);
    }
}
