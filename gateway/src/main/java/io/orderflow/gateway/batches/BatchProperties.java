package io.orderflow.gateway.batches;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of batch operations ({@code orderflow.batches.*}).
 *
 * @param rate      {@code BATCH_RATE}: orders a second one gateway instance acts on at most, across every batch it
 *                  runs; also the default and the highest {@code rate} of one batch
 * @param maxOrders {@code BATCH_MAX_ORDERS}: the most orders one batch may match
 * @param retention {@code BATCH_RETENTION}: how long a stopped or completed batch stays listed before it is removed
 */
@ConfigurationProperties("orderflow.batches")
public record BatchProperties(int rate, int maxOrders, Duration retention) {

    public static final int DEFAULT_RATE = 20;
    public static final int DEFAULT_MAX_ORDERS = 10_000;
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);
    /** Batches that may run at once in a deployment; one more is refused (409) until one ends. */
    public static final int MAX_RUNNING = 10;
    /** The most orders one batch may name by id ({@code orderIds}); the request schema says the same. */
    public static final int MAX_ORDER_IDS = 1000;

    public BatchProperties {
        rate = rate <= 0 ? DEFAULT_RATE : rate;
        maxOrders = maxOrders <= 0 ? DEFAULT_MAX_ORDERS : maxOrders;
        retention = retention == null || retention.isNegative() || retention.isZero() ? DEFAULT_RETENTION
                : retention;
    }
}
