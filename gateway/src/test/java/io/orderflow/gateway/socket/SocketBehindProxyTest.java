package io.orderflow.gateway.socket;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.gateway.orders.OrderIds;
import io.orderflow.gateway.testing.FakeProcessor.FakeOrder;
import io.orderflow.gateway.testing.GatewayDeployment;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.web.reactive.socket.client.ReactorNettyWebSocketClient;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * The socket's Origin check behind a TLS-terminating proxy: the browser's origin ({@code https://ops.example.com},
 * port 443) is compared with the forwarded scheme, host and port when the proxy is trusted, and with the connection's
 * own ({@code http}, the gateway's port) when it is not.
 */
class SocketBehindProxyTest {

    private static final String PASSWORD = "socket-proxy-password";

    private static GatewayDeployment deployment;

    @BeforeAll
    static void deployment() {
        deployment = new GatewayDeployment(PASSWORD);
        deployment.startInstance("--orderflow.auth.trusted-proxies=127.0.0.1");
        deployment.startInstance("--orderflow.auth.trusted-proxies=203.0.113.250");
    }

    @AfterAll
    static void stop() {
        deployment.close();
    }

    @Test
    void a_browser_behind_a_trusted_proxy_opens_the_socket_and_the_same_headers_from_elsewhere_are_refused() {
        String order = OrderIds.random();
        deployment.processor.put(new FakeOrder(order, "storefront_order", "fp", "running", null, null, 0));

        try (SocketClient socket = SocketClient.open(deployment.url(0), order, browserViaProxy())) {
            assertThat(socket.nextState().get("status").asString()).isEqualTo("running");
        }
        StepVerifier.create(new ReactorNettyWebSocketClient().execute(SocketClient.socketUri(deployment.url(1), order),
                        browserViaProxy(), session -> Mono.empty()))
                .expectErrorSatisfies(e -> assertThat(e).hasMessageContaining("403"))
                .verify(Duration.ofSeconds(15));
    }

    private static HttpHeaders browserViaProxy() {
        HttpHeaders headers = new HttpHeaders();
        headers.set(HttpHeaders.AUTHORIZATION, "Bearer " + PASSWORD);
        headers.set(HttpHeaders.ORIGIN, "https://ops.example.com");
        headers.set("X-Forwarded-Proto", "https");
        headers.set("X-Forwarded-Host", "ops.example.com");
        return headers;
    }
}
