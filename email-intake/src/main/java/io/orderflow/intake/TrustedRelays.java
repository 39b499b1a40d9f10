package io.orderflow.intake;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import io.netty.handler.ipfilter.IpFilterRuleType;
import io.netty.handler.ipfilter.IpSubnetFilterRule;

/**
 * {@code INTAKE_TRUSTED_RELAYS}: the connections whose {@code Authentication-Results} are believed, each an address
 * ({@code 10.0.0.25}, {@code ::1}) or a CIDR ({@code 10.0.0.0/24}). Anybody can write that header into a mail, so it
 * means something only when the relay that checked SPF, DKIM and DMARC is the one that delivers the mail here.
 */
final class TrustedRelays {

    /**
     * An IPv4 or IPv6 literal with an optional prefix length. Only literals: a host name would be resolved by DNS on
     * every check, and whoever controls that DNS would decide who is trusted.
     */
    private static final Pattern LITERAL = Pattern.compile(
            "(?<address>\\d{1,3}(\\.\\d{1,3}){3}|[0-9a-fA-F]*:[0-9a-fA-F:.]*)(/(?<prefix>\\d{1,3}))?");

    /** Netty's subnet rules (Netty is the gateway's network layer): an address is a rule of its full length. */
    private final List<IpSubnetFilterRule> rules;

    private TrustedRelays(List<IpSubnetFilterRule> rules) {
        this.rules = rules;
    }

    static TrustedRelays parse(List<String> entries) {
        return new TrustedRelays(entries.stream().map(entry -> {
            Matcher literal = LITERAL.matcher(entry);
            if (!literal.matches()) {
                throw invalid(entry);
            }
            String address = literal.group("address");
            int full = address.contains(":") ? 128 : 32;
            int prefix = literal.group("prefix") == null ? full : Integer.parseInt(literal.group("prefix"));
            if (prefix > full) {
                throw invalid(entry);
            }
            try {
                return new IpSubnetFilterRule(address, prefix, IpFilterRuleType.ACCEPT);
            } catch (IllegalArgumentException e) {
                throw invalid(entry);
            }
        }).toList());
    }

    private static IllegalArgumentException invalid(String entry) {
        return new IllegalArgumentException("INTAKE_TRUSTED_RELAYS: " + entry
                + " is not an IP address or a CIDR such as 10.0.0.0/24");
    }

    /** Whether the connection from {@code remote} is one of the trusted relays. */
    boolean trusts(SocketAddress remote) {
        if (!(remote instanceof InetSocketAddress socket) || socket.getAddress() == null) {
            return false;
        }
        return rules.stream().anyMatch(rule -> rule.matches(socket));
    }

    boolean isEmpty() {
        return rules.isEmpty();
    }
}
