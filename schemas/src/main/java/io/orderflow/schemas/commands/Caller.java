package io.orderflow.schemas.commands;

/**
 * The authenticated caller of a command, as the gateway resolved it.
 *
 * @param kind     {@code open} (open deployment), {@code password} (shared password), {@code token} or {@code person}
 * @param identity the name recorded as decider: {@code token:<name>}, an email, or {@code null} for open/password
 * @param role     {@code viewer}, {@code approver} or {@code operator}
 */
public record Caller(String kind, String identity, String role) {

    public static final Caller OPEN = new Caller("open", null, "operator");
}
