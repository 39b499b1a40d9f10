package io.orderflow.dispatcher.dispatch;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;

/**
 * Which resolved addresses a delivery may connect to. A subscription url is chosen by an operator, but the outcome of
 * its deliveries (status, error) is readable by every viewer: without this policy a url pointing inside the network
 * (a cloud metadata service, an admin port on loopback) would turn the dispatcher into a probe of that network.
 *
 * <p>Refused always: unspecified, broadcast and multicast addresses, link-local ones (169.254/16, fe80::/10), the
 * reserved 240/4 and the cloud metadata addresses. Loopback only over plain {@code http}, the one case the contract
 * allows for a local receiver. Private ranges (10/8, 172.16/12, 192.168/16, fc00::/7, the deprecated fec0::/10), shared
 * CGNAT space (100.64/10), the benchmarking range 198.18/15 and local-use NAT64 (64:ff9b:1::/48, which reaches
 * whatever the local translator reaches) are refused unless {@code allowPrivate} is set, for receivers on the
 * premises. IPv4 addresses embedded
 * in IPv6 (mapped, compatible, NAT64 64:ff9b::/96) are judged as the IPv4 address they reach.
 */
public final class AddressPolicy {

    /** The prefix of every refusal's recorded error; the API shows viewers a generic text in its place. */
    public static final String REFUSED = "refused: ";

    /**
     * Metadata services reachable from a cloud instance: AWS, GCP, Azure, OpenStack (169.254.169.254), AWS ECS task
     * metadata (169.254.170.2), Alibaba (100.100.100.200), Azure's wire server (168.63.129.16), AWS over IPv6
     * (fd00:ec2::254). Named apart so that {@code allowPrivate} never opens them.
     */
    private static final Set<InetAddress> METADATA = Set.of(
            address("169.254.169.254"), address("169.254.170.2"), address("100.100.100.200"),
            address("168.63.129.16"), address("fd00:ec2::254"));

    private final boolean allowPrivate;

    public AddressPolicy(boolean allowPrivate) {
        this.allowPrivate = allowPrivate;
    }

    /**
     * Why a connection to {@code address} for a url of {@code scheme} is refused ({@code "refused: 10.0.0.1 is a
     * private address"}), or empty when it may go ahead.
     */
    public Optional<String> refusal(InetAddress address, String scheme) {
        InetAddress judged = embeddedIpv4(address).orElse(address);
        String kind = kind(judged, scheme);
        return kind == null ? Optional.empty()
                : Optional.of(REFUSED + address.getHostAddress() + " is " + kind);
    }

    private String kind(InetAddress address, String scheme) {
        if (METADATA.contains(address)) {
            return "a cloud metadata address";
        }
        if (address.isAnyLocalAddress() || isIpv4InNet(address, 0, 8)) {
            return "an unspecified address";
        }
        if (address.isLoopbackAddress()) {
            return "http".equalsIgnoreCase(scheme) ? null : "a loopback address (allowed over http only)";
        }
        if (address.isLinkLocalAddress()) {
            return "a link-local address";
        }
        if (address.isMulticastAddress()) {
            return "a multicast address";
        }
        if (address instanceof Inet4Address && Arrays.equals(address.getAddress(), new byte[] {-1, -1, -1, -1})) {
            return "a broadcast address";
        }
        if (isIpv4InNet(address, 240 << 24, 4)) {
            return "a reserved address";
        }
        if (address.isSiteLocalAddress() || isIpv6UniqueLocal(address)) {
            return allowPrivate ? null : "a private address";
        }
        if (isIpv4InNet(address, 100 << 24 | 64 << 16, 10)) {
            return allowPrivate ? null : "a shared (CGNAT) address";
        }
        if (isIpv4InNet(address, 198 << 24 | 18 << 16, 15)) {
            return allowPrivate ? null : "a benchmarking address";
        }
        if (isLocalUseNat64(address)) {
            return allowPrivate ? null : "a local-use NAT64 address";
        }
        return null;
    }

    /** fc00::/7, the IPv6 counterpart of the RFC 1918 ranges ({@link InetAddress#isSiteLocalAddress} is fec0::/10). */
    private static boolean isIpv6UniqueLocal(InetAddress address) {
        return address instanceof Inet6Address && (address.getAddress()[0] & 0xfe) == 0xfc;
    }

    /** 64:ff9b:1::/48 (RFC 8215): NAT64 prefixes of a network's own, translating to any IPv4 address it reaches. */
    private static boolean isLocalUseNat64(InetAddress address) {
        byte[] b = address.getAddress();
        return address instanceof Inet6Address && b[0] == 0 && b[1] == 0x64 && b[2] == (byte) 0xff
                && b[3] == (byte) 0x9b && b[4] == 0 && b[5] == 1;
    }

    private static boolean isIpv4InNet(InetAddress address, int network, int prefixLength) {
        if (!(address instanceof Inet4Address)) {
            return false;
        }
        byte[] b = address.getAddress();
        int value = (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | (b[3] & 0xff);
        int mask = prefixLength == 0 ? 0 : -1 << (32 - prefixLength);
        return (value & mask) == (network & mask);
    }

    /**
     * The IPv4 address an IPv6 address carries: IPv4-compatible (::a.b.c.d, but not :: or ::1) and NAT64
     * (64:ff9b::a.b.c.d). IPv4-mapped addresses (::ffff:a.b.c.d) already come out of the JDK as {@link Inet4Address}.
     */
    private static Optional<InetAddress> embeddedIpv4(InetAddress address) {
        if (!(address instanceof Inet6Address)) {
            return Optional.empty();
        }
        byte[] b = address.getAddress();
        boolean compatible = isZero(b, 0, 12) && !isZero(b, 12, 15);
        boolean nat64 = b[0] == 0 && b[1] == 0x64 && b[2] == (byte) 0xff && b[3] == (byte) 0x9b && isZero(b, 4, 12);
        if (!compatible && !nat64) {
            return Optional.empty();
        }
        try {
            return Optional.of(InetAddress.getByAddress(Arrays.copyOfRange(b, 12, 16)));
        } catch (UnknownHostException e) {
            throw new IllegalStateException("Four bytes are an IPv4 address", e);
        }
    }

    private static boolean isZero(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return true;
    }

    /** A literal address; no name lookup happens for a literal. */
    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(literal, e);
        }
    }
}
