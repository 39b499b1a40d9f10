package io.orderflow.gateway.api;

import io.orderflow.schemas.json.Json;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.annotation.Order;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;

/**
 * Renders every failure, including unknown routes and wrong methods, as {@link ApiError}: one error shape for the
 * whole API. Runs before Spring Boot's default error handler.
 */
@Component
@Order(-2)
public class ErrorResponses implements WebExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ErrorResponses.class);
    static final String NOT_JSON = "Content type not supported; send application/json";
    static final String TOO_LARGE = "Request body is too large";

    @Override
    public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
        ServerHttpResponse response = exchange.getResponse();
        if (response.isCommitted()) {
            return Mono.error(ex);
        }
        if (ex instanceof ApiException api) {
            return write(response, api.status(), api.body(), api.headers());
        }
        if (tooLarge(ex)) {
            // 413, what clients and proxies expect; the body was refused before any handler acted on it
            return write(response, HttpStatus.CONTENT_TOO_LARGE, ApiError.of(TOO_LARGE), Map.of());
        }
        if (ex instanceof ResponseStatusException rse) {
            HttpStatusCode code = rse.getStatusCode();
            String error = code.value() == 404 ? "Not found"
                    : code.value() == 405 ? "Method not allowed"
                    : code.value() == 415 ? NOT_JSON
                    : rse.getReason() != null ? rse.getReason() : "Request failed";
            return write(response, code, ApiError.of(error), Map.of());
        }
        log.error("Unhandled error on {} {}", exchange.getRequest().getMethod(), exchange.getRequest().getPath(), ex);
        return write(response, HttpStatus.INTERNAL_SERVER_ERROR, ApiError.of("Internal error"), Map.of());
    }

    private static boolean tooLarge(Throwable ex) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t instanceof DataBufferLimitException) {
                return true;
            }
        }
        return false;
    }

    private static Mono<Void> write(ServerHttpResponse response, HttpStatusCode status, ApiError body,
                                    Map<String, String> headers) {
        response.setStatusCode(status);
        response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
        headers.forEach(response.getHeaders()::set);
        DataBuffer buffer = response.bufferFactory().wrap(Json.MAPPER.writeValueAsBytes(body));
        return response.writeWith(Mono.just(buffer));
    }
}
