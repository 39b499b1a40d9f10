package io.orderflow.internal;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.server.ConfigurableWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;

/**
 * The guard of a service whose HTTP server serves only internal routes ({@code /internal/**}: the order-processor's
 * queries, the webhook-dispatcher's subscriptions). Imported by those services' applications.
 *
 * <ul>
 *   <li>With {@code INTERNAL_TOKEN} set, every request must carry it in {@value InternalToken#HEADER}; otherwise the
 *   answer is 401 {@code {"error": ...}}. Every request, not only paths that start with {@code /internal/}: all the
 *   server's routes are internal, and a check by path prefix could be stepped around by a path that the router
 *   still maps there (a matrix parameter, {@code /internal;x=1/orders}). The one exception is the operations
 *   endpoints, matched by their exact path ({@link #OPEN_PATHS}): a load balancer, an orchestrator's probe or
 *   Prometheus reads them without the secret, and they show no order data (an UP/DOWN and counters).</li>
 *   <li>Without it, the server listens on the loopback address only ({@code server.address} left unset binds
 *   {@code 127.0.0.1}), and a non-loopback {@code server.address} stops the start: an internal API without a secret
 *   must not be reachable from another machine or container.</li>
 * </ul>
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(InternalToken.class)
public class InternalApiGuard {

    private static final Logger log = LoggerFactory.getLogger(InternalApiGuard.class);
    private static final byte[] UNAUTHORIZED = ("{\"error\":\"Send the internal token in the " + InternalToken.HEADER
            + " header\"}").getBytes(StandardCharsets.UTF_8);

    /** The operations endpoints, open without the token: readiness, liveness and the metrics scrape. */
    static final Set<String> OPEN_PATHS = Set.of("/actuator/health", "/actuator/health/readiness",
            "/actuator/health/liveness", "/actuator/prometheus");

    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    WebFilter internalTokenFilter(InternalToken token) {
        return (exchange, chain) -> {
            boolean open = exchange.getRequest().getMethod() == HttpMethod.GET
                    && OPEN_PATHS.contains(exchange.getRequest().getURI().getRawPath());
            if (open || token.accepts(exchange.getRequest().getHeaders().getFirst(InternalToken.HEADER))) {
                return chain.filter(exchange);
            }
            ServerHttpResponse response = exchange.getResponse();
            response.setStatusCode(HttpStatus.UNAUTHORIZED);
            response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
            return response.writeWith(Mono.just(response.bufferFactory().wrap(UNAUTHORIZED)));
        };
    }

    @Bean
    WebServerFactoryCustomizer<ConfigurableWebServerFactory> loopbackWithoutInternalToken(InternalToken token,
                                                                                          Environment environment) {
        return factory -> {
            if (token.value().isPresent()) {
                return;
            }
            String configured = environment.getProperty("server.address");
            if (configured == null || configured.isBlank()) {
                factory.setAddress(InetAddress.getLoopbackAddress());
                log.info("INTERNAL_TOKEN is unset: the internal API listens on {} only",
                        InetAddress.getLoopbackAddress().getHostAddress());
                return;
            }
            if (!loopback(configured)) {
                throw new IllegalStateException("INTERNAL_TOKEN is unset, so the internal API may not listen on "
                        + configured + ": set INTERNAL_TOKEN here and on the gateway, or listen on loopback only");
            }
        };
    }

    private static boolean loopback(String address) {
        try {
            return InetAddress.getByName(address.strip()).isLoopbackAddress();
        } catch (UnknownHostException e) {
            throw new IllegalStateException("server.address " + address + " does not resolve", e);
        }
    }
}
