package io.orderflow.gateway.chat;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.ResponseFormatJsonObject;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import java.util.List;

/**
 * The live model: any OpenAI-compatible chat-completions endpoint, through the official OpenAI Java client. JSON
 * output is asked for ({@code response_format: json_object}); no retries (a failed turn goes to the heuristic at
 * once, so a person never waits for more than one timeout per turn).
 */
final class OpenAiChatModel implements ChatModel, AutoCloseable {

    private final OpenAIClient client;
    private final String model;

    OpenAiChatModel(ChatProperties settings) {
        this.client = OpenAIOkHttpClient.builder()
                .baseUrl(settings.endpoint())
                .apiKey(settings.apiKey())
                .timeout(settings.timeout())
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
        ChatCompletion completion = client.chat().completions().create(params.build());
        return completion.choices().isEmpty() ? null
                : completion.choices().getFirst().message().content().orElse(null);
    }

    @Override
    public void close() {
        client.close();
    }
}
