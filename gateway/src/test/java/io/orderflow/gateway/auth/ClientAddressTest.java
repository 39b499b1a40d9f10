package io.orderflow.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

/** The client address a request is counted under, after {@link TrustedProxies} has read (or removed) the headers. */
class ClientAddressTest {

    private static MockServerHttpRequest from(String remote, String header, String... values) {
        return MockServerHttpRequest.get("/api/v1/flows").remoteAddress(new InetSocketAddress(remote, 40000))
                .header(header, values).build();
    }

    private static String client(List<String> trusted, MockServerHttpRequest request) {
        TrustedProxies proxies = new TrustedProxies(new AuthProperties(null, null, trusted));
        return new ClientAddress().of(proxies.apply(request));
    }

    @Test
    void without_a_trusted_proxy_the_header_is_ignored() {
        assertThat(client(List.of(), from("203.0.113.9", "X-Forwarded-For", "198.51.100.1"))).isEqualTo("203.0.113.9");
        assertThat(client(List.of(), from("203.0.113.9", "Forwarded", "for=198.51.100.1"))).isEqualTo("203.0.113.9");
    }

    @Test
    void behind_a_trusted_proxy_the_first_untrusted_hop_from_the_right_is_the_client() {
        List<String> trusted = List.of("10.0.0.2", "10.0.0.3");
        assertThat(client(trusted, from("10.0.0.2", "X-Forwarded-For", "1.2.3.4, 198.51.100.7, 10.0.0.3")))
                .isEqualTo("198.51.100.7");
        assertThat(client(trusted, from("10.0.0.2", "Forwarded",
                "for=1.2.3.4, for=\"[2001:db8::7]:4711\";proto=https, for=10.0.0.3")))
                .isEqualTo("2001:db8:0:0:0:0:0:7");
        // a client that writes the header itself, through an untrusted address, is counted under its own address
        assertThat(client(trusted, from("203.0.113.9", "X-Forwarded-For", "198.51.100.7"))).isEqualTo("203.0.113.9");
    }

    @Test
    void trusted_proxies_may_be_cidr_ranges_and_a_hop_that_is_no_address_is_never_looked_up() {
        List<String> trusted = List.of("10.0.0.0/8", "fd00::/8");
        assertThat(client(trusted, from("10.1.2.3", "X-Forwarded-For", "198.51.100.8, 10.9.9.9")))
                .isEqualTo("198.51.100.8");
        assertThat(client(trusted, from("fd00::1", "X-Forwarded-For", "2001:db8::8")))
                .isEqualTo("2001:db8:0:0:0:0:0:8");
        assertThat(client(trusted, from("10.1.2.3", "X-Forwarded-For", "unknown"))).isEqualTo("unknown");
    }
}
