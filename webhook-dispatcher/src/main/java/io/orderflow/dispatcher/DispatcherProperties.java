package io.orderflow.dispatcher;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the dispatcher ({@code orderflow.dispatcher.*}).
 *
 * @param backoffInitial    the wait before the first retry of a failed delivery; each further retry waits
 *                          {@code multiplier} times longer (10 s, 20 s, 40 s, 80 s, 160 s by default; not scaled by
 *                          {@code TIME_SCALE})
 * @param multiplier        growth of the wait from one retry to the next
 * @param retries           retries after the first attempt; an event's own {@code retries} can only lower it
 * @param requestTimeout    how long a subscriber may take to answer before the attempt counts as failed
 * @param topicPartitions   partitions of the topics the dispatcher creates itself (the attempts topic and its retry
 *                          and dead-letter topics)
 * @param topicReplication  their replication factor; {@code -1} takes the broker default
 * @param groupId           consumer group of the dispatcher's listeners
 */
@ConfigurationProperties("orderflow.dispatcher")
public record DispatcherProperties(
        @DefaultValue("10s") Duration backoffInitial,
        @DefaultValue("2") double multiplier,
        @DefaultValue("5") int retries,
        @DefaultValue("10s") Duration requestTimeout,
        @DefaultValue("6") int topicPartitions,
        @DefaultValue("-1") short topicReplication,
        @DefaultValue("orderflow-webhook-dispatcher") String groupId) {

    /** The wait before retry number {@code retry} (1-based). */
    public Duration backoffBefore(int retry) {
        return Duration.ofMillis(Math.round(backoffInitial.toMillis() * Math.pow(multiplier, retry - 1)));
    }
}
