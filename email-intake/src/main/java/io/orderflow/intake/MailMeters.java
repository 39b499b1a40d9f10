package io.orderflow.intake;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.regex.Pattern;
import org.springframework.stereotype.Component;

/**
 * Mails by the SMTP answer the intake gave: meter {@code orderflow.mail.intake{outcome,code,reason}}, counted where
 * the listener answers. {@code outcome} is {@code accepted} (an order was started), {@code replayed} (the same mail
 * again: its order already existed) or {@code refused}; {@code code} the SMTP reply code (250, 451, 452, 550, 552) and
 * {@code reason} the enhanced status code, which tells the refusals apart ({@code 5.1.1} no such mailbox,
 * {@code 5.7.1} sender not authenticated or not allowed, {@code 5.3.4} too large, {@code 5.6.0} unreadable,
 * {@code 4.3.0} try later, {@code 4.5.3} a second intake mailbox). Both sets are small and fixed.
 */
@Component
public class MailMeters {

    static final String INTAKE = "orderflow.mail.intake";
    /** For a listener built without a registry: counts into one of its own, read by nobody. */
    static final MailMeters NONE = new MailMeters(new SimpleMeterRegistry());
    private static final Pattern ENHANCED = Pattern.compile("[245]\\.\\d{1,3}\\.\\d{1,3}");

    private final MeterRegistry registry;

    public MailMeters(MeterRegistry registry) {
        this.registry = registry;
        // the taken mails are served from the start, at zero; a refusal's meter appears with its first refusal
        counter("accepted", 250, "2.0.0");
        counter("replayed", 250, "2.0.0");
    }

    /** A mail taken: a new order, or {@code replayed} when its order existed already. */
    void accepted(boolean replayed) {
        count(replayed ? "replayed" : "accepted", 250, "2.0.0");
    }

    /** A refusal with its SMTP code and text (the text starts with the enhanced status code). */
    void refused(int code, String text) {
        String first = text == null ? "" : text.split(" ", 2)[0];
        count("refused", code, ENHANCED.matcher(first).matches() ? first : "other");
    }

    private void count(String outcome, int code, String reason) {
        counter(outcome, code, reason).increment();
    }

    private Counter counter(String outcome, int code, String reason) {
        return Counter.builder(INTAKE).description("Mails by the intake's SMTP answer").tag("outcome", outcome)
                .tag("code", Integer.toString(code)).tag("reason", reason).register(registry);
    }
}
