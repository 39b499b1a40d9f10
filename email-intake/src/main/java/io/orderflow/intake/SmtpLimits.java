package io.orderflow.intake;

import io.orderflow.kafka.limits.RateLimiter;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.util.Arrays;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import org.subethamail.smtp.server.Session;
import org.subethamail.smtp.server.SessionHandler;

/**
 * What one client or one sender may hold of the SMTP listener, so that nobody takes all of its connections (each may
 * hold up to {@code INTAKE_MAX_MESSAGE_BYTES} while a mail is read, before the sender is checked):
 * <ul>
 *   <li>a client address that is not a trusted relay holds at most {@code INTAKE_CONNECTIONS_PER_CLIENT} connections
 *       at once (an IPv6 client is counted by its /64); one more is answered {@code 421 4.7.0} and closed. A trusted
 *       relay carries everybody's mail and is bounded only by the listener's total;</li>
 *   <li>an envelope sender ({@code MAIL FROM}) starts at most {@code INTAKE_SENDER_RATE_LIMIT} mail transactions a
 *       minute, however it connects (through the relay too); beyond, {@code MAIL FROM} is answered {@code 451 4.7.1}
 *       with the seconds to wait, which a relay retries after.</li>
 * </ul>
 */
final class SmtpLimits implements SessionHandler {

    private final TrustedRelays trustedRelays;
    private final int connectionsPerClient;
    private final RateLimiter senders;
    private final ConcurrentHashMap<InetAddress, Integer> connections = new ConcurrentHashMap<>();
    /** The sessions counted, by the client they count against: only those are let go at their end. */
    private final ConcurrentHashMap<Session, InetAddress> counted = new ConcurrentHashMap<>();

    SmtpLimits(TrustedRelays trustedRelays, int connectionsPerClient, int mailsPerSenderPerMinute, Clock clock) {
        this.trustedRelays = trustedRelays;
        this.connectionsPerClient = connectionsPerClient;
        this.senders = new RateLimiter(clock, mailsPerSenderPerMinute, mailsPerSenderPerMinute);
    }

    @Override
    public SessionAcceptance accept(Session session) {
        SocketAddress remote = session.getRemoteAddress();
        if (trustedRelays.trusts(remote) || !(remote instanceof InetSocketAddress socket)
                || socket.getAddress() == null) {
            return SessionAcceptance.success();
        }
        InetAddress client = clientKey(socket.getAddress());
        boolean[] taken = {false};
        connections.compute(client, (key, open) -> {
            int now = open == null ? 0 : open;
            if (now >= connectionsPerClient) {
                return open;
            }
            taken[0] = true;
            return now + 1;
        });
        if (!taken[0]) {
            return SessionAcceptance.failure(421, "4.7.0 Too many connections from your address (at most "
                    + connectionsPerClient + " at once); try again later");
        }
        counted.put(session, client);
        return SessionAcceptance.success();
    }

    @Override
    public void onSessionEnd(Session session) {
        InetAddress client = counted.remove(session);
        if (client != null) {
            connections.computeIfPresent(client, (key, open) -> open <= 1 ? null : open - 1);
        }
    }

    /** Takes one mail transaction of {@code sender}; the seconds to wait when it has started too many. */
    OptionalLong takeMail(String sender) {
        return senders.take(sender.strip().toLowerCase(Locale.ROOT));
    }

    /** Client addresses with a connection counted (for tests of the bound). */
    int clientsCounted() {
        return connections.size();
    }

    /** An IPv6 client holds a whole /64 as a rule: its addresses share one count. */
    private static InetAddress clientKey(InetAddress address) {
        if (!(address instanceof Inet6Address)) {
            return address;
        }
        try {
            return InetAddress.getByAddress(Arrays.copyOf(Arrays.copyOf(address.getAddress(), 8), 16));
        } catch (UnknownHostException e) {
            return address;
        }
    }
}
