package io.orderflow.intake;

/**
 * Why a mail was not taken, as the SMTP answer the sending relay gets: a permanent refusal (5xx, the relay bounces
 * the mail to its sender with this text) or a temporary one (4xx, the relay tries again later). Nothing was started.
 *
 * @param code the SMTP reply code
 * @param text the enhanced status code and the explanation, e.g. {@code 5.1.1 No such mailbox: x@example.com}
 */
final class IntakeRefusal extends Exception {

    private final int code;

    IntakeRefusal(int code, String text) {
        super(text, null, false, false);
        this.code = code;
    }

    int code() {
        return code;
    }

    static IntakeRefusal unknownMailbox(String recipient, java.util.Collection<String> mailboxes) {
        return new IntakeRefusal(550, "5.1.1 No such mailbox: " + recipient + ". Orders are taken at "
                + String.join(", ", mailboxes.stream().map(m -> m + "@").toList()));
    }

    static IntakeRefusal authenticationFailed(String sender, String reason) {
        return new IntakeRefusal(550, "5.7.1 Sender authentication failed for " + sender + ": " + reason);
    }

    static IntakeRefusal notAllowed(String sender) {
        return new IntakeRefusal(550, "5.7.1 " + sender + " is not allowed to place orders by email: the address is "
                + "not a customer's and not on the allowlist");
    }

    static IntakeRefusal tooLarge(int limit) {
        return new IntakeRefusal(552, "5.3.4 Message too large: the limit is " + limit + " bytes");
    }

    static IntakeRefusal unreadable(String reason) {
        return new IntakeRefusal(550, "5.6.0 " + reason);
    }

    static IntakeRefusal tryLater(String reason) {
        return new IntakeRefusal(451, "4.3.0 " + reason + "; try again later");
    }
}
