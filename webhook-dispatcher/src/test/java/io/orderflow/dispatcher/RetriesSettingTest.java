package io.orderflow.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * The contract: the agent's order.cancelled is "retried up to 5 times (WEBHOOK_RETRIES)", and other deliveries get the
 * outbound retries, 5. A WEBHOOK_RETRIES above 5 is given to the events that ask for it, not cut back to 5.
 */
class RetriesSettingTest {

    private static DispatcherProperties bound(Map<String, String> settings) {
        return new Binder(new MapConfigurationPropertySource(settings))
                .bindOrCreate("orderflow.dispatcher", DispatcherProperties.class);
    }

    @Test
    void anEventMayAskForUpToWebhookRetriesAndOthersKeepTheOutboundFive() {
        DispatcherProperties properties = bound(Map.of("orderflow.dispatcher.event-retries-max", "8"));

        assertThat(properties.retriesFor(null)).as("a delivery whose event asks for nothing").isEqualTo(5);
        assertThat(properties.retriesFor(8)).as("order.cancelled with WEBHOOK_RETRIES=8").isEqualTo(8);
        assertThat(properties.retriesFor(12)).isEqualTo(8);
        assertThat(properties.retriesFor(2)).isEqualTo(2);
        assertThat(properties.retryTopics()).isEqualTo(8);
    }

    @Test
    void byDefaultEverythingGetsFiveRetries() {
        DispatcherProperties properties = bound(Map.of());

        assertThat(properties.retriesFor(null)).isEqualTo(5);
        assertThat(properties.retriesFor(5)).isEqualTo(5);
        assertThat(properties.retryTopics()).isEqualTo(5);
        assertThat(properties.backoffBefore(5)).hasSeconds(160);
    }
}
