package io.orderflow.standalone;

import io.orderflow.gateway.orders.ProcessorClient;
import io.orderflow.processor.query.OrderQueryRouter;
import io.orderflow.schemas.query.OrderQueries;
import org.springframework.http.ResponseEntity;
import reactor.core.publisher.Mono;

/**
 * The gateway's reads answered by the processor of this JVM: each is the call its internal API's controller makes
 * ({@code local=false}: the router still gathers from other instances and forwards to a key's owner over HTTP).
 */
record InProcessReads(OrderQueryRouter router) implements ProcessorClient.InProcessReads {

    @Override
    public Mono<ResponseEntity<byte[]>> order(String orderId) {
        return router.order(orderId, false);
    }

    @Override
    public Mono<ResponseEntity<byte[]>> orders(OrderQueries.ListQuery query, boolean cursorInHeader) {
        return router.orders(query, false, cursorInHeader);
    }

    @Override
    public Mono<ResponseEntity<byte[]>> counts(OrderQueries.ListQuery query) {
        return router.counts(query, false);
    }

    @Override
    public Mono<ResponseEntity<byte[]>> approvals(String status, String assignee, String cursor) {
        return router.approvals(status, assignee, cursor, false);
    }
}
