package io.orderflow.schemas.commands;

/**
 * A command on {@code order-commands}: the command itself plus where its one reply goes.
 *
 * @param correlationId matches the {@link CommandReply}
 * @param replyTo       the gateway instance id, the key of the reply on {@code command-replies}
 * @param issuedAt      epoch milliseconds at the gateway
 * @param caller        who asked, as the gateway authenticated them
 */
public record CommandEnvelope(String correlationId, String replyTo, long issuedAt, Caller caller, OrderCommand command) {
}
