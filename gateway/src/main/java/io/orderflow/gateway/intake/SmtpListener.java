package io.orderflow.gateway.intake;

import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.subethamail.smtp.MessageContext;
import org.subethamail.smtp.MessageHandler;
import org.subethamail.smtp.RejectException;
import org.subethamail.smtp.server.SMTPServer;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * The SMTP listener a mail relay delivers to ({@code INTAKE_SMTP_PORT}; none when unset). Each mail transaction is
 * one {@link Transaction}: an unknown mailbox is refused at {@code RCPT}, everything else at the end of {@code DATA},
 * where the sender learns the order id in the 250 answer, or why nothing was started in the 4xx/5xx one.
 */
@Component
public class SmtpListener implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(SmtpListener.class);

    private final IntakeProperties settings;
    private final MailIntake intake;
    private volatile SMTPServer server;

    public SmtpListener(IntakeProperties settings, MailIntake intake) {
        this.settings = settings;
        this.intake = intake;
    }

    /** The port the listener accepts mail on, once started. */
    public Optional<Integer> port() {
        SMTPServer current = server;
        return current == null ? Optional.empty() : Optional.of(current.getPortAllocated());
    }

    @Override
    public void start() {
        Optional<Integer> port = settings.listenerPort();
        if (port.isEmpty()) {
            log.info("Email intake is not listening (INTAKE_SMTP_PORT is unset)");
            return;
        }
        server = SMTPServer.port(port.get())
                .softwareName("orderflow email intake")
                .maxMessageSize(settings.maxMessageBytes())
                .messageHandlerFactory(Transaction::new)
                .build();
        server.start();
        log.info("Email intake listening for SMTP on port {}: {}", server.getPortAllocated(),
                intake.describeMailboxes());
    }

    @Override
    public void stop() {
        SMTPServer current = server;
        if (current != null) {
            current.stop();
            server = null;
        }
    }

    @Override
    public boolean isRunning() {
        return server != null;
    }

    /** After the flow catalog, the customer directory and the command bus (phase 0) are up. */
    @Override
    public int getPhase() {
        return 10;
    }

    /** One mail transaction: {@code MAIL FROM}, {@code RCPT TO}, {@code DATA}. */
    private final class Transaction implements MessageHandler {

        private String envelopeSender;
        private String recipient;

        Transaction(MessageContext context) {
        }

        @Override
        public void from(String from) {
            envelopeSender = from == null ? "" : from;
        }

        @Override
        public void recipient(String to) throws RejectException {
            try {
                intake.flowFor(to);
            } catch (IntakeRefusal refusal) {
                throw reject(refusal);
            }
            String mailbox = Addresses.normalize(to);
            if (recipient == null) {
                recipient = mailbox;
            } else if (!recipient.equals(mailbox)) {
                // One order per mail: the relay delivers to the other mailbox in a transaction of its own.
                throw new RejectException(452, "4.5.3 One intake mailbox per mail; " + recipient
                        + " takes this one, send to " + mailbox + " separately");
            }
        }

        @Override
        public String data(InputStream data) throws RejectException, IOException {
            byte[] raw = data.readNBytes(settings.maxMessageBytes() + 1);
            try {
                if (raw.length > settings.maxMessageBytes()) {
                    throw IntakeRefusal.tooLarge(settings.maxMessageBytes());
                }
                MailIntake.Accepted accepted = intake.accept(recipient, raw, !envelopeSender.isEmpty());
                return accepted.replayed()
                        ? "2.0.0 Already received as order " + accepted.orderId() + "; nothing new was started"
                        : "2.0.0 Accepted: order " + accepted.orderId();
            } catch (IntakeRefusal refusal) {
                log.info("Refused a mail from {} to {}: {} {}", envelopeSender, recipient, refusal.code(),
                        refusal.getMessage());
                throw reject(refusal);
            }
        }

        @Override
        public void done() {
        }

        private static RejectException reject(IntakeRefusal refusal) {
            return new RejectException(refusal.code(), refusal.getMessage());
        }
    }
}
