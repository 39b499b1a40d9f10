package io.orderflow.intake;

import io.orderflow.intake.IntakeOrders.Started;
import io.orderflow.schemas.signing.Sha256;
import io.orderflow.schemas.customers.Customer;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.json.Json;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns an accepted mail into the ordinary start command, exactly as {@code POST /api/v1/orders} with an
 * {@code Idempotency-Key} would: the mailbox names the flow, the sender names the customer, the mail's text is
 * {@code input.documentText}, and the Message-ID is the idempotency key, so a re-delivered mail replays the order it
 * started instead of starting another. Everything that stops a mail is an {@link IntakeRefusal}, before any command.
 * The start itself goes through the service's {@link IntakeOrders}.
 */
@Component
public class MailIntake {

    private static final Logger log = LoggerFactory.getLogger(MailIntake.class);

    /** The answer to an accepted mail. */
    record Accepted(String orderId, boolean replayed, String flowId) {
    }

    private final IntakeProperties settings;
    private final Map<String, String> mailboxes;
    private final Allowlist allowlist;
    private final CustomerDirectory customers;
    private final IntakeOrders orders;
    private final Acknowledgements acknowledgements;

    public MailIntake(IntakeProperties settings, CustomerDirectory customers, IntakeOrders orders,
                      Acknowledgements acknowledgements) {
        this.settings = settings;
        this.mailboxes = settings.mailboxMap();
        this.allowlist = Allowlist.parse(settings.allowlist());
        this.customers = customers;
        this.orders = orders;
        this.acknowledgements = acknowledgements;
    }

    /** The flow a recipient's mail starts an order on, or a 550 for a mailbox intake does not have. */
    String flowFor(String recipient) throws IntakeRefusal {
        String flowId = mailboxes.get(Addresses.localPart(Addresses.normalize(recipient)));
        if (flowId == null) {
            throw IntakeRefusal.unknownMailbox(Addresses.normalize(recipient), mailboxes.keySet());
        }
        return flowId;
    }

    /**
     * Takes one mail sent to {@code recipient} (a mailbox {@link #flowFor} accepted). The header is read first and
     * the sender checked on it; the body (MIME parts, HTML, PDFs) is parsed only for a sender that passed.
     *
     * @param replyAllowed     false for a bounce (empty envelope sender), which is never answered
     * @param fromTrustedRelay whether the mail came over a connection from {@code INTAKE_TRUSTED_RELAYS}; when not,
     *                         its {@code Authentication-Results} headers are not read at all
     */
    Accepted accept(String recipient, byte[] raw, boolean replyAllowed, boolean fromTrustedRelay)
            throws IntakeRefusal {
        String mailbox = Addresses.normalize(recipient);
        String flowId = flowFor(mailbox);
        MailReader.Opened opened = MailReader.open(raw);
        String sender = opened.sender();
        if (settings.requireAuth()) {
            var verdict = SenderAuthentication.check(
                    fromTrustedRelay ? opened.authenticationResults() : List.of(),
                    settings.trustedAuthservId(), Addresses.domain(sender));
            if (!verdict.passed()) {
                throw IntakeRefusal.authenticationFailed(sender, verdict.reason());
            }
        }
        Optional<Customer> customer = customers.forSender(sender);
        if (customer.isEmpty() && !allowlist.allows(sender)) {
            throw IntakeRefusal.notAllowed(sender);
        }
        InboundMail mail = opened.read();
        if (mail.documentText().isBlank()) {
            throw IntakeRefusal.unreadable("No order text found" + (mail.notRead().isEmpty() ? ""
                    : " (not read: " + String.join("; ", mail.notRead()) + ")")
                    + ": write the order lines in the mail, one per line "
                    + "such as \"3 x WIDGET-1\", or attach them as a text or PDF file");
        }
        FlowVersion flow = block(orders.flow(flowId));
        ObjectNode body = startBody(flowId, flow, mail, mailbox, customer.map(Customer::id).orElse(sender));
        Started started = block(orders.start(flow, body, idempotencyKey(mail), sender, mailbox));
        return switch (started) {
            case Started.Created created -> {
                log.info("Mail {} from {} to {} started order {}", mail.messageId(), sender, mailbox,
                        created.orderId());
                if (settings.reply() && replyAllowed && !mail.automatic()) {
                    acknowledgements.send(mail, mailbox, created.orderId(), flow, customer);
                }
                yield new Accepted(created.orderId(), false, flowId);
            }
            case Started.Replayed replayed -> new Accepted(replayed.orderId(), true, flowId);
            case Started.KeyTaken taken -> throw IntakeRefusal.unreadable("Message-ID " + mail.messageId()
                    + " was already used by a different mail; nothing was started");
            case Started.Invalid invalid -> throw IntakeRefusal.unreadable(
                    "The mail could not be turned into a valid order: " + invalid.issues());
            case Started.NotStarted refused when refused.status() >= 500 -> throw IntakeRefusal.tryLater(
                    "The order could not be started (" + refused.error() + ")");
            case Started.NotStarted refused -> throw IntakeRefusal.unreadable(
                    "The order could not be started: " + refused.error());
        };
    }

    /** {@code {flowId, input: {type, customerId, documentText, meta}}}: what a REST client would have sent. */
    private static ObjectNode startBody(String flowId, FlowVersion flow, InboundMail mail, String mailbox,
                                        String customerId) {
        ObjectNode body = Json.object();
        body.put("flowId", flowId);
        ObjectNode input = body.putObject("input");
        input.put("type", flow.graph().orderType() == null ? null : flow.graph().orderType().wire());
        input.put("customerId", customerId);
        input.put("documentText", mail.documentText());
        ObjectNode meta = input.putObject("meta");
        meta.put("source", "email");
        meta.put("mailbox", mailbox);
        meta.put("from", mail.sender());
        meta.put("subject", mail.subject());
        if (mail.messageId() != null) {
            meta.put("messageId", mail.messageId());
        }
        return body;
    }

    /**
     * {@code mail:<Message-ID>}; a Message-ID too long for a key is hashed. A mail without one (rare: relays add it)
     * is keyed by what was read from it, so a re-delivery of the same mail still replays.
     */
    static String idempotencyKey(InboundMail mail) {
        String id = mail.messageId();
        if (id == null || id.isBlank()) {
            return "mail-content:" + Sha256.hex(mail.sender() + "\n" + mail.subject() + "\n" + mail.documentText());
        }
        String key = "mail:" + id.strip();
        return key.length() <= 255 ? key : "mail-sha256:" + Sha256.hex(id.strip());
    }

    /** Waits on the SMTP session's own thread; an unavailable service or flow is a temporary refusal. */
    private <T> T block(Mono<T> answer) throws IntakeRefusal {
        try {
            return answer.block(orders.answerWithin());
        } catch (IllegalStateException timedOut) {
            throw IntakeRefusal.tryLater("The order service did not answer in time");
        } catch (RuntimeException e) {
            log.warn("Mail intake could not start an order: {}", e.getMessage());
            throw IntakeRefusal.tryLater(e.getMessage());
        }
    }

    /** Mailbox names for the log at start. */
    String describeMailboxes() {
        return mailboxes.entrySet().stream().map(e -> e.getKey() + "@ → " + e.getValue())
                .collect(Collectors.joining(", "));
    }
}
