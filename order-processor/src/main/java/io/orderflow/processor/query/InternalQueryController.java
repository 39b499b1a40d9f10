package io.orderflow.processor.query;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** The internal interactive-query API the gateway (and other processor instances) call. */
@RestController
@RequestMapping("/internal")
public class InternalQueryController {

    private static final int LIST_MAX = 200;

    private final OrderQueryRouter router;

    public InternalQueryController(OrderQueryRouter router) {
        this.router = router;
    }

    @GetMapping("/orders/{id}")
    Mono<ResponseEntity<String>> order(@PathVariable String id,
                                       @RequestParam(defaultValue = "false") boolean local) {
        return router.order(id, local);
    }

    @GetMapping("/orders")
    Mono<ResponseEntity<String>> orders(@RequestParam(required = false) String type,
                                        @RequestParam(required = false) String status,
                                        @RequestParam(required = false) String q,
                                        @RequestParam(defaultValue = "200") int limit,
                                        @RequestParam(defaultValue = "false") boolean local) {
        return router.orders(type, status, q, Math.min(limit, LIST_MAX), local);
    }

    @GetMapping("/approvals")
    Mono<ResponseEntity<String>> approvals(@RequestParam(required = false) String status,
                                           @RequestParam(defaultValue = "false") boolean local) {
        return router.approvals(status, local);
    }
}
