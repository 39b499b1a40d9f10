package io.orderflow.intake;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.subethamail.smtp.DropConnectionException;
import org.subethamail.smtp.MessageContext;
import org.subethamail.smtp.MessageHandler;
import org.subethamail.smtp.RejectException;
import org.subethamail.smtp.server.SMTPServer;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * The SMTP listener a mail relay delivers to ({@code INTAKE_SMTP_PORT}; none when unset), on {@code INTAKE_SMTP_HOST}
 * (every interface when unset). Each mail transaction is one {@link Transaction}: an unknown mailbox is refused at
 * {@code RCPT}, everything else at the end of {@code DATA}, where the sender learns the order id in the 250 answer,
 * or why nothing was started in the 4xx/5xx one.
 *
 * <p>Anybody who reaches the port may connect; what a connection may claim depends on where it comes from: only mail
 * from an address in {@code INTAKE_TRUSTED_RELAYS} has its {@code Authentication-Results} read ({@link TrustedRelays}),
 * and only a connection from elsewhere counts against the per-client limit ({@link SmtpLimits}).
 *
 * <p>The size limit is advertised with the {@code SIZE} extension, so a mail declared larger is refused at
 * {@code MAIL FROM} before any of it is sent; a mail that turns out larger in {@code DATA} is refused at its end,
 * after the rest of it is read and dropped (so none of it is read as commands), or, when the rest is larger than the
 * limit again, by closing the connection.
 */
@Component
public class SmtpListener implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(SmtpListener.class);

    /**
     * How long a connection may be silent before it is closed. RFC 5321 (4.5.3.2.7) asks a server to wait five
     * minutes; a relay that holds a connection open and says nothing for a minute is gone or hostile.
     */
    static final int IDLE_TIMEOUT_SECONDS = 60;
    /** Sessions at once: each has a thread and may hold up to {@code INTAKE_MAX_MESSAGE_BYTES} in memory. */
    static final int MAX_CONNECTIONS = 32;
    /** {@code RCPT} commands per mail; one intake mailbox per mail, a few repeats of it are harmless. */
    static final int MAX_RECIPIENTS = 10;

    private final IntakeProperties settings;
    private final MailIntake intake;
    private final TrustedRelays trustedRelays;
    private final SmtpLimits limits;
    private volatile SMTPServer server;
    private MailMeters meters = MailMeters.NONE;

    public SmtpListener(IntakeProperties settings, MailIntake intake, Clock clock) {
        this.settings = settings;
        this.intake = intake;
        this.trustedRelays = TrustedRelays.parse(settings.trustedRelays());
        this.limits = new SmtpLimits(trustedRelays, settings.connectionsPerClient(),
                settings.mailsPerSenderPerMinute(), clock);
    }

    @Autowired(required = false)
    void meters(MailMeters meters) {
        this.meters = meters;
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
                .bindAddress(bindAddress())
                .softwareName("orderflow email intake")
                .maxMessageSize(settings.maxMessageBytes())
                .connectionTimeout(IDLE_TIMEOUT_SECONDS, TimeUnit.SECONDS)
                .maxConnections(MAX_CONNECTIONS)
                .maxRecipients(MAX_RECIPIENTS)
                .sessionHandler(limits)
                // no Received line of this listener's own on top: the relay's Authentication-Results must stay the
                // mail's first header line (SenderAuthentication)
                .insertReceivedHeaders(false)
                .messageHandlerFactory(Transaction::new)
                .build();
        server.start();
        log.info("Email intake listening for SMTP on {}:{}: {}", settings.smtpHost() == null ? "*"
                : settings.smtpHost(), server.getPortAllocated(), intake.describeMailboxes());
        if (settings.requireAuth() && trustedRelays.isEmpty()) {
            log.warn("Email intake: INTAKE_TRUSTED_RELAYS is empty, so no mail passes sender authentication; "
                    + "set it to the relay's address, or INTAKE_REQUIRE_AUTH=false");
        }
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

    private Optional<InetAddress> bindAddress() {
        if (settings.smtpHost() == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(InetAddress.getByName(settings.smtpHost()));
        } catch (UnknownHostException e) {
            throw new IllegalStateException("INTAKE_SMTP_HOST: unknown host " + settings.smtpHost(), e);
        }
    }

    /** After the flow catalog, the customer directory and the command bus (phase 0) are up. */
    @Override
    public int getPhase() {
        return 10;
    }

    /** One mail transaction: {@code MAIL FROM}, {@code RCPT TO}, {@code DATA}. */
    private final class Transaction implements MessageHandler {

        private final SocketAddress remote;
        private final boolean fromTrustedRelay;
        private String envelopeSender;
        private String recipient;

        Transaction(MessageContext context) {
            remote = context.getRemoteAddress();
            fromTrustedRelay = trustedRelays.trusts(remote);
        }

        @Override
        public void from(String from) throws RejectException {
            String sender = from == null ? "" : from;
            OptionalLong wait = limits.takeMail(sender);
            if (wait.isPresent()) {
                meters.refused(451, "4.7.1");
                throw new RejectException(451, "4.7.1 Too many mails from " + (sender.isEmpty() ? "<>" : sender)
                        + "; try again in " + wait.getAsLong() + " s");
            }
            envelopeSender = sender;
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
                meters.refused(452, "4.5.3");
                throw new RejectException(452, "4.5.3 One intake mailbox per mail; " + recipient
                        + " takes this one, send to " + mailbox + " separately");
            }
        }

        @Override
        public String data(InputStream data) throws RejectException, IOException {
            byte[] raw = data.readNBytes(settings.maxMessageBytes() + 1);
            if (raw.length > settings.maxMessageBytes()) {
                raw = null; // not kept while the rest is dropped
                IntakeRefusal refusal = IntakeRefusal.tooLarge(settings.maxMessageBytes());
                log.info("Refused a mail from {} to {} (connection from {}): {} {}", envelopeSender, recipient, remote,
                        refusal.code(), refusal.getMessage());
                meters.refused(refusal.code(), refusal.getMessage());
                if (!dropped(data, settings.maxMessageBytes())) {
                    throw new DropConnectionException(refusal.code(), refusal.getMessage()
                            + "; closing the connection");
                }
                throw new RejectException(refusal.code(), refusal.getMessage());
            }
            try {
                MailIntake.Accepted accepted = intake.accept(recipient, raw, !envelopeSender.isEmpty(),
                        fromTrustedRelay);
                meters.accepted(accepted.replayed());
                return accepted.replayed()
                        ? "2.0.0 Already received as order " + accepted.orderId() + "; nothing new was started"
                        : "2.0.0 Accepted: order " + accepted.orderId();
            } catch (IntakeRefusal refusal) {
                log.info("Refused a mail from {} to {} (connection from {}, {}): {} {}", envelopeSender, recipient,
                        remote, fromTrustedRelay ? "a trusted relay" : "not a trusted relay", refusal.code(),
                        refusal.getMessage());
                throw reject(refusal);
            }
        }

        @Override
        public void done() {
        }

        /** Reads and drops what is left of the mail, up to {@code atMost} bytes: whether the mail's end came. */
        private static boolean dropped(InputStream data, long atMost) throws IOException {
            byte[] buffer = new byte[8192];
            long left = atMost;
            for (int n; (n = data.read(buffer, 0, (int) Math.min(buffer.length, left + 1))) >= 0; ) {
                left -= n;
                if (left < 0) {
                    return false;
                }
            }
            return true;
        }

        private RejectException reject(IntakeRefusal refusal) {
            meters.refused(refusal.code(), refusal.getMessage());
            return new RejectException(refusal.code(), refusal.getMessage());
        }
    }
}
