package io.orderflow.processor.query;

import io.orderflow.schemas.query.LocalQueryApi;
import io.orderflow.schemas.query.OrderQueries;
import java.net.URI;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.stereotype.Component;

/**
 * Offers this instance's reads of one order to a gateway in the same JVM ({@link LocalQueryApi}): the same routing as
 * {@code GET /internal/orders/{id}} (the store of this instance, or forwarded over HTTP to the owner of the key),
 * without the HTTP hop into this instance. Lists and the approvals inbox stay on HTTP.
 */
@Component
public class LocalQueries implements LocalQueryApi, ApplicationListener<WebServerInitializedEvent>, DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(LocalQueries.class);
    private static final String ORDER_PREFIX = OrderQueries.ORDERS + "/";

    private final OrderQueryRouter router;
    private volatile AutoCloseable registration;

    public LocalQueries(OrderQueryRouter router) {
        this.router = router;
    }

    @Override
    public synchronized void onApplicationEvent(WebServerInitializedEvent event) {
        if (event.getApplicationContext().getServerNamespace() != null || registration != null) {
            return;
        }
        int port = event.getWebServer().getPort();
        registration = LocalQueryApi.register(this, "http://127.0.0.1:" + port, "http://localhost:" + port);
        log.info("Order reads offered in this JVM for port {}", port);
    }

    @Override
    public Optional<CompletionStage<Answer>> get(URI relative) {
        String path = relative.getPath();
        if (path == null || !path.startsWith(ORDER_PREFIX) || path.indexOf('/', ORDER_PREFIX.length()) >= 0
                || path.length() == ORDER_PREFIX.length()) {
            return Optional.empty();
        }
        String query = relative.getQuery();
        boolean local = query != null && query.contains(OrderQueries.LOCAL + "=true");
        return Optional.of(router.order(path.substring(ORDER_PREFIX.length()), local)
                .map(answer -> new Answer(answer.getStatusCode().value(), answer.getBody()))
                .toFuture());
    }

    @Override
    public synchronized void destroy() throws Exception {
        if (registration != null) {
            registration.close();
            registration = null;
        }
    }
}
