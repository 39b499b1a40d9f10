package io.orderflow.gateway.orders;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.gateway.GatewayProperties;
import io.orderflow.gateway.api.ApiException;
import io.orderflow.internal.InternalToken;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

class ProcessorClientTest {

    @Test
    void an_unreachable_processor_is_503_with_retry_after_for_an_order_and_a_list() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        ProcessorClient client = new ProcessorClient(
                new GatewayProperties("http://127.0.0.1:" + closedPort, null, null, null, null), InternalToken.none());
        for (Mono<?> read : List.of(client.order("ord_1"), client.get(uri -> uri.path("/internal/orders").build()))) {
            StepVerifier.create(read)
                    .expectErrorSatisfies(e -> {
                        assertThat(e).isInstanceOf(ApiException.class);
                        assertThat(((ApiException) e).status().value()).isEqualTo(503);
                        assertThat(((ApiException) e).headers()).containsKey("Retry-After");
                    })
                    .verify(Duration.ofSeconds(15));
        }
    }

    @Test
    void settings_default_to_the_spec() {
        GatewayProperties defaults = new GatewayProperties(null, null, null, null, null);
        assertThat(defaults.replyTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(defaults.processorUrl()).isEqualTo("http://localhost:8081");
        assertThat(defaults.dispatcherUrl()).isEqualTo("http://localhost:8082");
        assertThat(defaults.inboundSecret()).isEmpty();
        assertThat(defaults.instanceId()).startsWith("gateway-");
    }
}
