package io.orderflow.dispatcher.dispatch;

import io.orderflow.dispatcher.DispatcherProperties;
import io.orderflow.schemas.signing.WebhookSignature;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.springframework.stereotype.Component;

/**
 * POSTs one signed delivery. Never blocks the caller: the answer (or its absence) arrives on the returned future.
 * Redirects are not followed: a 3xx is a failed attempt like any other non-2xx.
 */
@Component
public class WebhookSender {

    /** What one attempt got: the status of the answer, if any, and why it failed, if it did. */
    public record Outcome(Integer status, String error) {

        public boolean delivered() {
            return error == null;
        }
    }

    private final HttpClient http;
    private final Duration timeout;
    private final Clock clock;

    public WebhookSender(DispatcherProperties properties, Clock clock) {
        this.timeout = properties.requestTimeout();
        this.clock = clock;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(timeout)
                .build();
    }

    public CompletableFuture<Outcome> send(String url, String secret, String event, String deliveryId, byte[] body) {
        HttpRequest request;
        try {
            request = HttpRequest.newBuilder(URI.create(url))
                    .timeout(timeout)
                    .header("content-type", "application/json")
                    .header("x-service-signature", WebhookSignature.sign(secret, clock.instant(), body))
                    .header("x-service-event", event)
                    .header("x-service-delivery", deliveryId)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                    .build();
        } catch (IllegalArgumentException e) {
            return CompletableFuture.completedFuture(new Outcome(null, "Invalid url: " + e.getMessage()));
        }
        return http.sendAsync(request, HttpResponse.BodyHandlers.discarding())
                .handle((response, failure) -> {
                    if (failure != null) {
                        return new Outcome(null, describe(failure));
                    }
                    int status = response.statusCode();
                    return status >= 200 && status < 300
                            ? new Outcome(status, null)
                            : new Outcome(status, "HTTP " + status);
                });
    }

    private String describe(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (cause instanceof HttpTimeoutException) {
            return "No response within " + (timeout.toMillis() % 1000 == 0
                    ? timeout.toSeconds() + " s" : timeout.toMillis() + " ms");
        }
        if (cause instanceof java.net.ConnectException) {
            return "Could not connect to the subscriber";
        }
        String message = cause.getMessage();
        return cause.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + message);
    }
}
