package io.orderflow.intake;

import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.reactor.retry.RetryOperator;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.orderflow.schemas.customers.Customer;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.query.OrderView;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.mail.MailSendException;
import org.springframework.mail.javamail.JavaMailSenderImpl;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.JsonNode;

/**
 * The acknowledgement reply to an accepted mail, sent through the configured SMTP relay after the SMTP answer (a slow
 * or absent relay never delays or fails intake): the order id, what was understood, and the link to the order page.
 * It waits (bounded by {@code replyWait}) for the Extract order node to read the lines, so it can list them. The reply
 * threads under the mail ({@code In-Reply-To}, {@code References}) and says it is automatic ({@code Auto-Submitted}),
 * so an auto-responder does not answer it back.
 *
 * <p>A relay that cannot be reached, or that answers a transient 4xx, is tried again ({@value #RELAY_ATTEMPTS}
 * attempts in all, {@link #RELAY_FIRST_WAIT} then twice that apart; resilience4j-retry): a relay restarting or
 * greylisting still gets the reply out. A permanent refusal (5xx) is not retried. A reply that never got out is
 * logged.
 */
@Component
public class Acknowledgements {

    private static final Logger log = LoggerFactory.getLogger(Acknowledgements.class);
    private static final Duration POLL = Duration.ofMillis(250);
    private static final Set<OrderStatus> BEFORE_EXTRACTION = Set.of(OrderStatus.QUEUED, OrderStatus.RUNNING);
    /** Sends of one reply through the relay, the first included. */
    static final int RELAY_ATTEMPTS = 3;
    /** The wait before the second send; each later wait doubles. */
    static final Duration RELAY_FIRST_WAIT = Duration.ofSeconds(1);

    private final IntakeProperties settings;
    private final IntakeOrders orders;
    private final JavaMailSenderImpl relay;
    private final Retry relayRetry = Retry.of("acknowledgement-relay", RetryConfig.custom()
            .maxAttempts(RELAY_ATTEMPTS)
            .intervalFunction(IntervalFunction.ofExponentialBackoff(RELAY_FIRST_WAIT, 2))
            .retryOnException(Acknowledgements::transientFailure)
            .build());

    public Acknowledgements(IntakeProperties settings, IntakeOrders orders) {
        this.settings = settings;
        this.orders = orders;
        this.relay = new JavaMailSenderImpl();
        relay.setHost(settings.relayHost());
        relay.setPort(settings.relayPort());
        relay.setDefaultEncoding(StandardCharsets.UTF_8.name());
        Properties props = new Properties();
        props.put("mail.smtp.connectiontimeout", "10000");
        props.put("mail.smtp.timeout", "10000");
        props.put("mail.smtp.writetimeout", "10000");
        relay.setJavaMailProperties(props);
    }

    /** Sends the reply in the background. */
    void send(InboundMail mail, String mailbox, String orderId, FlowVersion flow, Optional<Customer> customer) {
        understood(orderId)
                .map(state -> text(mail, mailbox, orderId, flow, customer, state))
                .flatMap(text -> Mono.fromRunnable(() -> deliver(mail, mailbox, orderId, text))
                        .subscribeOn(Schedulers.boundedElastic())
                        .transformDeferred(RetryOperator.of(relayRetry)))
                .subscribe(null, error -> log.warn("Could not send the acknowledgement of order {} to {}: {}",
                        orderId, mail.sender(), error.toString()));
    }

    /** The order's live state once its lines are read, or none when that takes longer than replyWait. */
    private Mono<Optional<OrderView>> understood(String orderId) {
        return orders.view(orderId)
                .onErrorResume(e -> Mono.empty())
                .filter(Acknowledgements::extracted)
                .repeatWhenEmpty(attempts -> attempts.delayElements(POLL))
                .map(Optional::of)
                .timeout(settings.replyWait(), Mono.just(Optional.empty()));
    }

    private static boolean extracted(OrderView state) {
        return !lines(state).isEmpty() || state.status() != null && !BEFORE_EXTRACTION.contains(state.status());
    }

    /** The order's lines, as far as they have been read (an empty node when there are none). */
    private static JsonNode lines(OrderView state) {
        JsonNode lines = state.order() == null ? null : state.order().get("lines");
        return lines != null && lines.isArray() ? lines : Json.MAPPER.createArrayNode();
    }

    private String text(InboundMail mail, String mailbox, String orderId, FlowVersion flow,
                        Optional<Customer> customer, Optional<OrderView> state) {
        String flowName = flow.graph().name() != null ? flow.graph().name() : flow.flowId();
        StringBuilder text = new StringBuilder();
        text.append("Hello ").append(customer.map(Customer::name).orElse(mail.sender())).append(",\n\n");
        text.append("your mail to ").append(mailbox).append(" started order ").append(orderId)
                .append(" (").append(flowName).append(").\n\n");
        text.append("What we understood:\n");
        text.append("  Customer: ").append(customer.map(c -> c.name() + " (" + c.id() + ")")
                .orElse(mail.sender())).append('\n');
        text.append("  Read from: ").append(String.join(", ", mail.readFrom())).append('\n');
        if (mail.truncated()) {
            text.append("  Only the first ").append(MailReader.MAX_DOCUMENT_CHARS)
                    .append(" characters were read.\n");
        }
        for (String notRead : mail.notRead()) {
            text.append("  Not read: ").append(notRead).append('\n');
        }
        JsonNode lines = state.map(Acknowledgements::lines).orElseGet(Json.MAPPER::createArrayNode);
        if (!lines.isEmpty()) {
            text.append("  Order lines:\n");
            for (JsonNode line : lines) {
                text.append("    ").append(line.path("qty").asInt(1)).append(" x ").append(line.path("sku").asString());
                if (line.hasNonNull("name")) {
                    text.append(' ').append(line.get("name").asString());
                }
                if (line.path("unitPrice").isNumber()) {
                    text.append(" @ ").append(line.get("unitPrice").decimalValue()
                                    .setScale(2, java.math.RoundingMode.HALF_UP).toPlainString())
                            .append(' ').append(state.get().order().path("currency").asString("USD"));
                }
                text.append('\n');
            }
        } else if (state.isPresent() && state.get().status() != null) {
            text.append("  No order lines were found in your mail. Write one per line, such as \"3 x WIDGET-1\".\n");
        } else {
            text.append("  The order lines are still being read; the order page shows them.\n");
        }
        text.append("\nFollow the order: ").append(orderPage(orderId)).append("\n\n");
        text.append("This is an automatic reply to your message ").append(mail.messageId() == null ? ""
                : mail.messageId()).append(".\n");
        return text.toString();
    }

    private String orderPage(String orderId) {
        return settings.publicBaseUrl() + "/orders/" + orderId;
    }

    private void deliver(InboundMail mail, String mailbox, String orderId, String text) {
        try {
            MimeMessage reply = relay.createMimeMessage();
            reply.setFrom(new InternetAddress(settings.from()));
            reply.setRecipients(MimeMessage.RecipientType.TO, InternetAddress.parse(mail.sender()));
            String subject = mail.subject().isBlank() ? "Your order" : mail.subject();
            reply.setSubject((subject.regionMatches(true, 0, "Re:", 0, 3) ? subject : "Re: " + subject)
                    + " [order " + orderId + "]", StandardCharsets.UTF_8.name());
            if (mail.messageId() != null) {
                reply.setHeader("In-Reply-To", mail.messageId());
                reply.setHeader("References", mail.references() == null ? mail.messageId()
                        : mail.references().strip() + " " + mail.messageId());
            }
            reply.setHeader("Auto-Submitted", "auto-replied");
            reply.setHeader("X-Orderflow-Order-Id", orderId);
            reply.setText(text, StandardCharsets.UTF_8.name());
            relay.send(reply);
            log.info("Acknowledged order {} to {} (mail to {})", orderId, mail.sender(), mailbox);
        } catch (MessagingException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** An SMTP reply as the relay's refusal carries it: its code first, such as {@code 451 4.3.2 Busy}. */
    private static final java.util.regex.Pattern SMTP_REPLY = java.util.regex.Pattern.compile("[45]\\d\\d[ -]");

    /**
     * Whether a send that failed may succeed later: the relay could not be reached or dropped the connection, or it
     * answered a 4xx (busy, greylisting). A 5xx is the relay's final word.
     */
    static boolean transientFailure(Throwable failure) {
        if (!(failure instanceof MailSendException send)) {
            return false;
        }
        List<Throwable> causes = new ArrayList<>(List.of(send.getMessageExceptions()));
        if (send.getCause() != null) {
            causes.add(send.getCause());
        }
        for (Throwable cause : causes) {
            for (Throwable t = cause; t != null; t = next(t)) {
                String reply = t.getMessage() == null ? "" : t.getMessage().strip();
                boolean refused = t instanceof jakarta.mail.SendFailedException
                        || t instanceof jakarta.mail.internet.AddressException;
                if (refused && SMTP_REPLY.matcher(reply).lookingAt()) {
                    return reply.charAt(0) == '4';
                }
            }
        }
        return true;
    }

    private static Throwable next(Throwable t) {
        return t instanceof jakarta.mail.MessagingException m && m.getNextException() != null
                ? m.getNextException() : t.getCause();
    }
}
