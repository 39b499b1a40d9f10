package io.orderflow.schemas.commands;

/**
 * Where a started order came from, when it did not come through the REST API. Absent on a start command means the
 * API (or the scheduled replenishment), so commands written before this field existed read the same.
 *
 * @param channel {@code mail} for email intake
 * @param from    the sender's address, as authenticated
 * @param mailbox the intake mailbox the mail was sent to ({@code orders@example.com})
 */
public record OrderSource(String channel, String from, String mailbox) {

    public static OrderSource mail(String from, String mailbox) {
        return new OrderSource("mail", from, mailbox);
    }
}
