package io.orderflow.schemas.commands;

/**
 * The authenticated caller of a command, as the gateway resolved it.
 *
 * @param kind     {@code open} (open deployment), {@code password} (shared password), {@code token}, {@code person}
 *                 {@code signature} (a signed inbound event) or {@code mail} (email intake)
 * @param identity the name recorded as decider: {@code token:<name>}, an email, {@code mail:<sender>} for email
 *                 intake, or {@code null} for open/password
 * @param role     {@code viewer}, {@code approver} or {@code operator}
 */
public record Caller(String kind, String identity, String role) {

    public static final Caller OPEN = new Caller("open", null, "operator");

    /** The sender of a signed inbound event: whoever holds {@code WEBHOOK_SECRET}. */
    public static final Caller SIGNED_REQUEST = new Caller("signature", "signature", "operator");
}
