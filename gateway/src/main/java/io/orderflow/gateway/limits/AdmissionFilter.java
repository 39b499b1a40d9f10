package io.orderflow.gateway.limits;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpMethod;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Asks {@link Admission} about a start ({@code POST /api/v1/orders}) before the security chain and before the body is
 * read, so that a refusal costs the gateway as little as it can: under an overload most requests are refused, and
 * each refused start that went through authentication and the body's parsing first took about 0.4 ms of the event
 * loops (docs/operations.md, "Overload"). Inside {@code RequestBodyDrain}, which reads an unread body to its end, and
 * after {@code CrossSiteRequests}, whose 403 and 415 come first.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 20)
public class AdmissionFilter implements WebFilter {

    static final String STARTS = "/api/v1/orders";

    private final Admission admission;

    public AdmissionFilter(Admission admission) {
        this.admission = admission;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        if (exchange.getRequest().getMethod() == HttpMethod.POST
                && STARTS.equals(exchange.getRequest().getPath().pathWithinApplication().value())) {
            return admission.admit().then(chain.filter(exchange));
        }
        return chain.filter(exchange);
    }
}
