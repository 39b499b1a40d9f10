package io.orderflow.gateway.chat;

import java.util.List;

/**
 * A chat-completions model, called off the event loops (the loop runs on a blocking-capable scheduler). Any failure
 * (an HTTP error, a timeout, an unreachable endpoint) is thrown; the caller falls back to the heuristic.
 */
public interface ChatModel {

    /** One message of the conversation sent to the model. */
    record Message(String role, String content) {

        public static Message system(String content) {
            return new Message("system", content);
        }

        public static Message user(String content) {
            return new Message("user", content);
        }

        public static Message assistant(String content) {
            return new Message("assistant", content);
        }
    }

    /** The model's answer content for {@code messages}, asked for as a JSON object. */
    String complete(List<Message> messages);
}
