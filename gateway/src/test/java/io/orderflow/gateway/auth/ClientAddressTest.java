package io.orderflow.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

class ClientAddressTest {

    private static MockServerHttpRequest from(String remote, String... forwardedFor) {
        return MockServerHttpRequest.get("/api/v1/flows").remoteAddress(new InetSocketAddress(remote, 40000))
                .header("X-Forwarded-For", forwardedFor).build();
    }

    @Test
    void without_a_trusted_proxy_the_header_is_ignored() {
        ClientAddress addresses = new ClientAddress(new AuthProperties(null, null, List.of()));
        assertThat(addresses.of(from("203.0.113.9", "198.51.100.1"))).isEqualTo("203.0.113.9");
    }

    @Test
    void behind_a_trusted_proxy_the_first_untrusted_hop_from_the_right_is_the_client() {
        ClientAddress addresses = new ClientAddress(new AuthProperties(null, null, List.of("10.0.0.2", "10.0.0.3")));
        assertThat(addresses.of(from("10.0.0.2", "1.2.3.4, 198.51.100.7, 10.0.0.3"))).isEqualTo("198.51.100.7");
        // a client that writes the header itself, through an untrusted address, is counted under its own address
        assertThat(addresses.of(from("203.0.113.9", "198.51.100.7"))).isEqualTo("203.0.113.9");
    }
}
