package io.orderflow.processor.query;

import io.orderflow.schemas.query.OrderQueries;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** The internal interactive-query API the gateway (and other processor instances) call. */
@RestController

public class InternalQueryController {

    private final OrderQueryRouter router;

    public InternalQueryController(OrderQueryRouter router) {
        this.router = router;
    }

    @GetMapping(OrderQueries.ORDER)
    Mono<ResponseEntity<byte[]>> order(@PathVariable String id,
                                       @RequestParam(name = OrderQueries.LOCAL, defaultValue = "false") boolean local) {
        return router.order(id, local);
    }

    @GetMapping(OrderQueries.ORDERS)
    Mono<ResponseEntity<byte[]>> orders(@RequestParam(required = false) String type,
                                        @RequestParam(required = false) String status,
                                        @RequestParam(required = false) String q,
                                        @RequestParam(required = false) Long since,
                                        @RequestParam(required = false) Long until,
                                        @RequestParam(required = false) String sort,
                                        @RequestParam(required = false) String cursor,
                                        @RequestParam(required = false) Integer limit,
                                        @RequestParam(name = OrderQueries.LOCAL, defaultValue = "false")
                                        boolean local,
                                        @RequestParam(name = OrderQueries.CURSOR_IN_HEADER, defaultValue = "false")
                                        boolean cursorInHeader) {
        return router.orders(new OrderQueries.ListQuery(type, status, q, since, until, sort, cursor,
                limit == null ? OrderQueries.LIST_MAX : limit), local, cursorInHeader);
    }

    @GetMapping(OrderQueries.ORDER_COUNTS)
    Mono<ResponseEntity<byte[]>> counts(@RequestParam(required = false) String type,
                                        @RequestParam(required = false) String q,
                                        @RequestParam(required = false) Long since,
                                        @RequestParam(required = false) Long until,
                                        @RequestParam(name = OrderQueries.LOCAL, defaultValue = "false")
                                        boolean local) {
        return router.counts(new OrderQueries.ListQuery(type, null, q, since, until, null, null,
                OrderQueries.LIST_MAX), local);
    }

    @GetMapping(OrderQueries.APPROVALS)
    Mono<ResponseEntity<byte[]>> approvals(@RequestParam(name = OrderQueries.STATUS, required = false) String status,
                                           @RequestParam(required = false) String assignee,
                                           @RequestParam(required = false) String cursor,
                                           @RequestParam(name = OrderQueries.LOCAL, defaultValue = "false")
                                           boolean local) {
        return router.approvals(status, assignee, cursor, local);
    }

    @GetMapping(OrderQueries.INCIDENTS)
    Mono<ResponseEntity<byte[]>> incidents(@RequestParam(name = OrderQueries.LOCAL, defaultValue = "false")
                                           boolean local) {
        return router.incidents(local);
    }
}
