package io.orderflow.gateway.chat;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.RequestOptions;
import com.openai.errors.InternalServerException;
import com.openai.errors.OpenAIIoException;
import com.openai.errors.RateLimitException;
import com.openai.models.ResponseFormatJsonObject;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.List;

/**
 * The live model: any OpenAI-compatible chat-completions endpoint, through the official OpenAI Java client. JSON
 * output is asked for ({@code response_format: json_object}).
 *
 * <p>A transient failure (the endpoint unreachable or the connection dropped, a 5xx, a 429) is tried again after
 * {@link #RETRY_WAIT} (resilience4j-retry, at most {@value #ATTEMPTS} attempts), but only within the one
 * {@code AI_TIMEOUT} the call has: every attempt gets what is left of it, and none starts once it has run out. A
 * person therefore never waits longer than one timeout per turn; past it, or on any other failure, the heuristic
 * answers. A timed-out attempt is not tried again.
 */
final class OpenAiChatModel implements ChatModel, AutoCloseable {

    /** Attempts of one model call, the first included. */
    static final int ATTEMPTS = 3;
    static final Duration RETRY_WAIT = Duration.ofMillis(250);
    /** An attempt with less time left than this is not started. */
    private static final Duration LEAST_ATTEMPT = Duration.ofMillis(100);

    private final OpenAIClient client;
    private final String model;
    private final Duration timeout;
    private final Retry retry = Retry.of("chat-model", RetryConfig.custom()
            .maxAttempts(ATTEMPTS)
            .waitDuration(RETRY_WAIT)
            .retryOnException(OpenAiChatModel::transientFailure)
            .build());

    OpenAiChatModel(ChatProperties settings) {
        this.timeout = settings.timeout();
        this.client = OpenAIOkHttpClient.builder()
                .baseUrl(settings.endpoint())
                .apiKey(settings.apiKey())
                .timeout(timeout)
                .maxRetries(0)
                .build();
        this.model = settings.model();
    }

    @Override
    public String complete(List<Message> messages) {
        ChatCompletionCreateParams.Builder params = ChatCompletionCreateParams.builder()
                .model(model)
                .temperature(0)
                .responseFormat(ResponseFormatJsonObject.builder().build());
        for (Message message : messages) {
            switch (message.role()) {
                case "system" -> params.addSystemMessage(message.content());
                case "assistant" -> params.addAssistantMessage(message.content());
                default -> params.addUserMessage(message.content());
            }
        }
        ChatCompletionCreateParams request = params.build();
        long deadline = System.nanoTime() + timeout.toNanos();
        ChatCompletion completion = Retry.decorateSupplier(retry, () -> {
            Duration left = Duration.ofNanos(deadline - System.nanoTime());
            if (left.compareTo(LEAST_ATTEMPT) < 0) {
                throw new ModelTimedOut(timeout);
            }
            return client.chat().completions().create(request, RequestOptions.builder().timeout(left).build());
        }).get();
        return completion.choices().isEmpty() ? null
                : completion.choices().getFirst().message().content().orElse(null);
    }

    /** Whether a failed attempt may succeed when tried again: not a timeout, not a refusal of the request. */
    static boolean transientFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InterruptedIOException) {
                return false; // a timeout: the call's time is spent
            }
        }
        return failure instanceof OpenAIIoException || failure instanceof InternalServerException
                || failure instanceof RateLimitException;
    }

    /** The call's {@code AI_TIMEOUT} ran out between attempts. */
    static final class ModelTimedOut extends RuntimeException {
        ModelTimedOut(Duration timeout) {
            super("The model did not answer within " + timeout);
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
