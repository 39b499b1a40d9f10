package io.orderflow.gateway.orders;

import io.orderflow.gateway.GatewayProperties;
import io.orderflow.gateway.api.ApiException;
import java.time.Duration;
import java.util.function.Function;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.util.UriBuilder;
import reactor.core.publisher.Mono;

/**
 * Interactive queries against the order-processor's internal HTTP API. Any instance answers: it forwards to the
 * owner of an order's key, and scatter-gathers a list across every instance.
 */
@Component
public class ProcessorClient {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final WebClient http;

    public ProcessorClient(GatewayProperties settings) {
        this.http = WebClient.builder().baseUrl(settings.processorUrl()).build();
    }

    /** GET on the internal API, answered with the processor's status and JSON body as they are. */
    public Mono<ResponseEntity<String>> get(Function<UriBuilder, java.net.URI> uri) {
        return http.get().uri(uri).accept(MediaType.APPLICATION_JSON)
                .exchangeToMono(response -> response.bodyToMono(String.class).defaultIfEmpty("{}")
                        .map(body -> ResponseEntity.status(response.statusCode())
                                .contentType(MediaType.APPLICATION_JSON).body(body)))
                .timeout(TIMEOUT)
                .onErrorMap(e -> !(e instanceof ApiException),
                        e -> ApiException.unavailable("The order processor is not reachable; retry later"));
    }
}
