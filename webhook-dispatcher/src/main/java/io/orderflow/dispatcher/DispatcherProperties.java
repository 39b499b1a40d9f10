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
 * @param retries           retries after the first attempt of a delivery whose event asks for none (the contract's
 *                          outbound retries: 5)
 * @param eventRetriesMax   the most retries an event may ask for: {@code WEBHOOK_RETRIES}, which the order agent gives
 *                          the {@code order.cancelled} it sends; retry topics exist for the larger of the two
 * @param requestTimeout    how long a subscriber may take to answer before the attempt counts as failed
 * @param topicPartitions   partitions of the topics the dispatcher creates itself (the attempts topic and its retry
 *                          and dead-letter topics)
 * @param topicReplication  their replication factor; {@code -1} takes the broker default
 * @param groupId           consumer group of the dispatcher's listeners
 * @param allowPrivate      deliver to private (10/8, 172.16/12, 192.168/16, fc00::/7) and CGNAT (100.64/10) addresses,
 *                          for receivers on the premises; link-local, metadata and other special addresses stay
 *                          refused, and loopback is reached over http only (see
 *                          {@link io.orderflow.dispatcher.dispatch.AddressPolicy})
 * @param connectionsPerHost connections open at once to one subscriber host and port: the bound on one subscriber's
 *                          concurrent deliveries; more wait for a free connection within their attempt's timeout
 * @param slowAfter         a subscriber whose answer takes longer than this has its next first attempts moved to the
 *                          slow lane, where it cannot hold up the others (see
 *                          {@link io.orderflow.dispatcher.dispatch.SubscriberLanes})
 * @param rotationGrace     after a subscription's secret is rotated, deliveries carry a signature with the old
 *                          secret next to the new one for this long, so a receiver can switch over without a gap
 */
@ConfigurationProperties("orderflow.dispatcher")
public record DispatcherProperties(
        @DefaultValue("10s") Duration backoffInitial,
        @DefaultValue("2") double multiplier,
        @DefaultValue("5") int retries,
        @DefaultValue("5") int eventRetriesMax,
        @DefaultValue("10s") Duration requestTimeout,
        @DefaultValue("6") int topicPartitions,
        @DefaultValue("-1") short topicReplication,
        @DefaultValue("orderflow-webhook-dispatcher") String groupId,
        @DefaultValue("false") boolean allowPrivate,
        @DefaultValue("32") int connectionsPerHost,
        @DefaultValue("1s") Duration slowAfter,
        @DefaultValue("24h") Duration rotationGrace,
        @DefaultValue("5") int failingAfter,
        @DefaultValue("24h") Duration replayMaxWindow,
        @DefaultValue("10000") int replayMaxEvents,
        @DefaultValue("1m") Duration replayInterval) {

    /** How many retry topics there are: enough for a delivery's own retries and for any an event asks for. */
    public int retryTopics() {
        return Math.max(retries, eventRetriesMax);
    }

    /** The retries of a delivery whose event asks for {@code asked} ({@code null}: none asked). */
    public int retriesFor(Integer asked) {
        return asked == null ? retries : Math.max(0, Math.min(asked, retryTopics()));
    }

    /** The wait before retry number {@code retry} (1-based). */
    public Duration backoffBefore(int retry) {
        return Duration.ofMillis(Math.round(backoffInitial.toMillis() * Math.pow(multiplier, retry - 1)));
    }
}
