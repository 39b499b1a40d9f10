package io.orderflow.processor.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.internal.InternalToken;
import io.orderflow.processor.TestSettings;
import io.orderflow.processor.streams.OrderStreams;
import io.orderflow.schemas.query.LocalQueryApi;
import io.orderflow.schemas.query.OrderQueries;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.util.DefaultUriBuilderFactory;
import reactor.core.publisher.Mono;

/** A gateway in the same JVM reads one order through the router directly; lists stay on HTTP. */
class LocalQueriesTest {

    private final List<String> asked = new ArrayList<>();
    private final OrderQueryRouter router = new OrderQueryRouter(new OrderStreams(TestSettings.processor()), null,
                InternalToken.none()) {
        @Override
        public Mono<ResponseEntity<byte[]>> order(String orderId, boolean local) {
            asked.add(orderId + (local ? " local" : ""));
            return Mono.just(ResponseEntity.status(HttpStatus.NOT_FOUND)
                    .body("{\"error\":\"x\"}".getBytes(StandardCharsets.UTF_8)));
        }
    };
    private final LocalQueries queries = new LocalQueries(router);

    @Test
    void answersAReadOfOneOrderAsTheHttpApiWould() throws Exception {
        URI uri = new DefaultUriBuilderFactory().builder().path(OrderQueries.ORDER).build("ord_1");

        LocalQueryApi.Answer answer = queries.get(uri).orElseThrow().toCompletableFuture().get();

        assertThat(answer.status()).isEqualTo(404);
        assertThat(new String(answer.body(), StandardCharsets.UTF_8)).isEqualTo("{\"error\":\"x\"}");
        assertThat(queries.get(URI.create("/internal/orders/ord_2?local=true"))).isPresent();
        assertThat(asked).containsExactly("ord_1", "ord_2 local");
    }

    @Test
    void leavesListsAndOtherPathsToHttp() {
        assertThat(queries.get(URI.create(OrderQueries.ORDERS + "?status=completed"))).isEmpty();
        assertThat(queries.get(URI.create(OrderQueries.ORDERS + "/"))).isEmpty();
        assertThat(queries.get(URI.create(OrderQueries.APPROVALS))).isEmpty();
        assertThat(queries.get(URI.create("/internal/orders/ord_1/extra"))).isEmpty();
        assertThat(asked).isEmpty();
    }

    @Test
    void aRegistrationIsFoundByItsUrlUntilClosed() throws Exception {
        AutoCloseable registration = LocalQueryApi.register(queries, "http://127.0.0.1:1234");

        assertThat(LocalQueryApi.at("http://127.0.0.1:1234/")).contains(queries);
        assertThat(LocalQueryApi.at("http://127.0.0.1:1235")).isEmpty();
        registration.close();
        assertThat(LocalQueryApi.at("http://127.0.0.1:1234")).isEmpty();
    }
}
