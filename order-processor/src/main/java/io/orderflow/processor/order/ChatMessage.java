package io.orderflow.processor.order;

/** One ops chat message; only the last {@value OrderState#CHAT_CAP} are kept. */
public record ChatMessage(long at, String role, String text) {
}
