package io.orderflow.gateway;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the gateway ({@code orderflow.gateway.*}).
 *
 * @param processorUrl  base URLs of the order-processor instances' internal query API, comma-separated
 *                      ({@code PROCESSOR_URLS}, else {@code PROCESSOR_URL})
 * @param dispatcherUrl base URL of a webhook-dispatcher's internal subscription API
 * @param instanceId    this gateway instance's id: the key of its replies on {@code command-replies};
 *                      blank means a random one per start
 * @param replyTimeout  how long a command waits for the processor's reply before answering 503
 * @param webhookSecret {@code WEBHOOK_SECRET}: the key of signed inbound events; blank turns the endpoint off (503)
 */
@ConfigurationProperties("orderflow.gateway")
public record GatewayProperties(String processorUrl, String dispatcherUrl, String instanceId, Duration replyTimeout,
                                String webhookSecret) {

    public GatewayProperties {
        processorUrl = blank(processorUrl) ? "http://localhost:8081" : processorUrl;
        dispatcherUrl = blank(dispatcherUrl) ? "http://localhost:8082" : dispatcherUrl;
        instanceId = blank(instanceId) ? "gateway-" + UUID.randomUUID() : instanceId;
        replyTimeout = replyTimeout == null ? Duration.ofSeconds(10) : replyTimeout;
        webhookSecret = blank(webhookSecret) ? null : webhookSecret;
    }

    /** The order-processor instances, in the order given. */
    public List<String> processorUrls() {
        List<String> urls = Arrays.stream(processorUrl.split(",")).map(String::strip).filter(url -> !url.isEmpty())
                .toList();
        return urls.isEmpty() ? List.of("http://localhost:8081") : urls;
    }

    /** The inbound signing key, when one is set. */
    public Optional<String> inboundSecret() {
        return Optional.ofNullable(webhookSecret);
    }

    private static boolean blank(String value) {
        return value == null || value.isBlank();
    }
}
