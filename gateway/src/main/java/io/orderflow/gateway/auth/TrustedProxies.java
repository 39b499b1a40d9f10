package io.orderflow.gateway.auth;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.security.util.matcher.InetAddressMatcher;
import org.springframework.security.util.matcher.InetAddressMatchers;
import org.springframework.stereotype.Component;
import org.springframework.web.server.adapter.ForwardedHeaderTransformer;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;

/**
 * Forwarded headers ({@code Forwarded}, {@code X-Forwarded-Proto}, {@code -Host}, {@code -Port}, {@code -For},
 * {@code -Ssl}) are believed only on a connection from a trusted proxy ({@code TRUSTED_PROXIES}: addresses or CIDR
 * ranges). From there Spring's {@link ForwardedHeaderTransformer} applies them: the request's URI takes the
 * forwarded scheme, host and port, so behind a TLS-terminating proxy the session cookie is {@code Secure} and an
 * {@code Origin} is compared with the origin the browser used. From anyone else they are removed unread, so a client
 * cannot claim https, another host or another address.
 *
 * <p>The client's address is the first hop of {@code X-Forwarded-For} (or of {@code Forwarded}'s {@code for=})
 * counted from the right that is not a trusted proxy: the left end is whatever the client wrote, only the hops the
 * trusted proxies appended are facts. It replaces the request's remote address, which {@link ClientAddress} reads.
 *
 * <p>Registered under the bean name {@link WebHttpHandlerBuilder} looks up, so it runs before every filter.
 */
@Component(WebHttpHandlerBuilder.FORWARDED_HEADER_TRANSFORMER_BEAN_NAME)
public class TrustedProxies extends ForwardedHeaderTransformer {

    private final InetAddressMatcher trusted;
    private final ForwardedHeaderTransformer removeOnly = new ForwardedHeaderTransformer();

    public TrustedProxies(AuthProperties settings) {
        this.trusted = settings.trustedProxies().isEmpty() ? address -> false
                : InetAddressMatchers.builder().includeAddresses(settings.trustedProxies()).build();
        removeOnly.setRemoveOnly(true);
    }

    @Override
    public ServerHttpRequest apply(ServerHttpRequest request) {
        if (!hasForwardedHeaders(request)) {
            return request;
        }
        if (!trusted(request.getRemoteAddress())) {
            return removeOnly.apply(request);
        }
        Optional<InetSocketAddress> client = client(request);
        ServerHttpRequest forwarded = super.apply(request);
        return client.map(address -> forwarded.mutate().remoteAddress(address).build()).orElse(forwarded);
    }

    private boolean trusted(InetSocketAddress remote) {
        return remote != null && remote.getAddress() != null && trusted.matches(remote.getAddress());
    }

    /** The first hop from the right that is not a trusted proxy; the leftmost when every hop is one. */
    private Optional<InetSocketAddress> client(ServerHttpRequest request) {
        List<String> hops = hops(request);
        for (int i = hops.size() - 1; i >= 0; i--) {
            String hop = hops.get(i);
            Optional<InetAddress> address = literal(hop);
            if (address.isEmpty() || !trusted.matches(address.get()) || i == 0) {
                return Optional.of(address.map(a -> new InetSocketAddress(a, 0))
                        // "unknown", an obfuscated "_node": kept as a name, never looked up
                        .orElseGet(() -> InetSocketAddress.createUnresolved(hop, 0)));
            }
        }
        return Optional.empty();
    }

    /** The {@code for=} values of {@code Forwarded} (the standard header wins, as in Spring), else X-Forwarded-For. */
    private static List<String> hops(ServerHttpRequest request) {
        List<String> hops = new ArrayList<>();
        List<String> forwarded = request.getHeaders().getOrEmpty("Forwarded");
        if (!forwarded.isEmpty()) {
            for (String header : forwarded) {
                for (String element : header.split(",")) {
                    for (String pair : element.split(";")) {
                        String trimmed = pair.strip();
                        if (trimmed.toLowerCase(Locale.ROOT).startsWith("for=")) {
                            hops.add(trimmed.substring(4).replace("\"", "").strip());
                        }
                    }
                }
            }
            return hops;
        }
        for (String header : request.getHeaders().getOrEmpty("X-Forwarded-For")) {
            for (String hop : header.split(",")) {
                if (!hop.isBlank()) {
                    hops.add(hop.strip());
                }
            }
        }
        return hops;
    }

    /**
     * The address a hop names when it is an IP literal, with an optional port ({@code 192.0.2.1:4711},
     * {@code [2001:db8::1]:4711}). Only literals are parsed, so no hop ever causes a name lookup.
     */
    static Optional<InetAddress> literal(String hop) {
        String host = hop;
        if (host.startsWith("[")) {
            int end = host.indexOf(']');
            if (end < 0) {
                return Optional.empty();
            }
            host = host.substring(1, end);
        } else if (host.indexOf(':') >= 0 && host.indexOf(':') == host.lastIndexOf(':')) {
            host = host.substring(0, host.indexOf(':')); // IPv4 with a port
        }
        boolean ipv6 = host.indexOf(':') >= 0
                && host.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.');
        boolean ipv4 = !host.isEmpty() && host.chars().allMatch(c -> (c >= '0' && c <= '9') || c == '.');
        if (!ipv6 && !ipv4) {
            return Optional.empty();
        }
        try {
            return Optional.of(InetAddress.getByName(host));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }
}
