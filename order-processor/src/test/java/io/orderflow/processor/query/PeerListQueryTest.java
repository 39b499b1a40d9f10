package io.orderflow.processor.query;

import io.orderflow.schemas.query.OrderQueries;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpMethod;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.util.MultiValueMap;
import org.springframework.web.util.DefaultUriBuilderFactory;

import java.net.URI;

import static org.assertj.core.api.Assertions.assertThat;

/** The list query as another instance receives it: the scatter-gather asks every peer the same question. */
class PeerListQueryTest {

    @Test
    void aSearchReachesTheOtherInstancesExactlyAsTyped() {
        for (String q : new String[]{"jane+shop@example.com", "a&b=c", "50%", "{cus_42}", "Storefront order · cus", "a#b"}) {
            MultiValueMap<String, String> received = asReceived(OrderQueryRouter.peerOrders(
                    new OrderQueries.ListQuery("b2b_order", "waiting", q, 200)));

            assertThat(received.getFirst("q")).as("q=%s", q).isEqualTo(q);
            assertThat(received.getFirst("type")).isEqualTo("b2b_order");
            assertThat(received.getFirst("status")).isEqualTo("waiting");
            assertThat(received.getFirst("limit")).isEqualTo("200");
            assertThat(received.getFirst("local")).isEqualTo("true");
        }
    }

    @Test
    void absentFiltersAreNotSent() {
        MultiValueMap<String, String> received = asReceived(OrderQueryRouter.peerOrders(new OrderQueries.ListQuery(null, null, null, 50)));

        assertThat(received.keySet()).containsExactlyInAnyOrder("local", "limit");
    }

    /** Built as the router's {@code WebClient} builds it, parsed as the peer's WebFlux server parses it. */
    private static MultiValueMap<String, String> asReceived(java.util.function.Function<
            org.springframework.web.util.UriBuilder, URI> query) {
        URI uri = query.apply(new DefaultUriBuilderFactory().builder());
        assertThat(uri.getRawPath()).isEqualTo("/internal/orders");
        return MockServerHttpRequest.method(HttpMethod.GET, URI.create("http://peer:8080" + uri.getRawPath() + "?"
                + uri.getRawQuery())).build().getQueryParams();
    }
}
