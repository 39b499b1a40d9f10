package io.orderflow.gateway.orders;

import io.orderflow.gateway.GatewayProperties;
import io.orderflow.gateway.internal.InternalApi;
import java.net.URI;
import java.util.function.Function;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.web.util.UriBuilder;
import reactor.core.publisher.Mono;

/**
 * Interactive queries against the order-processor's internal HTTP API. Any instance answers: it forwards to the
 * owner of an order's key, and scatter-gathers a list across every instance.
 */
@Component
public class ProcessorClient {

    private final InternalApi api;

    public ProcessorClient(GatewayProperties settings) {
        this.api = new InternalApi(settings.processorUrl(), "order processor");
    }

    /** GET on the internal API, answered with the processor's status and JSON body as they are. */
    public Mono<ResponseEntity<String>> get(Function<UriBuilder, URI> uri) {
        return api.get(uri);
    }
}
