package io.orderflow.gateway;

import java.time.Duration;
import java.util.UUID;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the gateway ({@code orderflow.gateway.*}).
 *
 * @param processorUrl base URL of an order-processor's internal query API
 * @param instanceId   this gateway instance's id: the key of its replies on {@code command-replies};
 *                     blank means a random one per start
 * @param replyTimeout how long a command waits for the processor's reply before answering 503
 */
@ConfigurationProperties("orderflow.gateway")
public record GatewayProperties(String processorUrl, String instanceId, Duration replyTimeout) {

    public GatewayProperties {
        processorUrl = processorUrl == null || processorUrl.isBlank() ? "http://localhost:8081" : processorUrl;
        instanceId = instanceId == null || instanceId.isBlank() ? "gateway-" + UUID.randomUUID() : instanceId;
        replyTimeout = replyTimeout == null ? Duration.ofSeconds(10) : replyTimeout;
    }
}
