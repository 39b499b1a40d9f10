package io.orderflow.gateway.auth;

import java.net.InetSocketAddress;
import java.util.List;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.stereotype.Component;

/**
 * The address a request came from, for counting guesses. {@code X-Forwarded-For} is believed only when the
 * connection comes from a configured trusted proxy, and then only up to the first hop that is not one (a client
 * cannot plant an address by sending the header itself).
 */
@Component
public class ClientAddress {

    private final List<String> trustedProxies;

    public ClientAddress(AuthProperties settings) {
        this.trustedProxies = settings.trustedProxies();
    }

    public String of(ServerHttpRequest request) {
        InetSocketAddress remote = request.getRemoteAddress();
        String address = remote == null ? "unknown"
                : remote.getAddress() != null ? remote.getAddress().getHostAddress() : remote.getHostString();
        if (!trustedProxies.contains(address)) {
            return address;
        }
        List<String> forwarded = request.getHeaders().getValuesAsList("X-Forwarded-For");
        for (int i = forwarded.size() - 1; i >= 0; i--) {
            String hop = forwarded.get(i).strip();
            if (!trustedProxies.contains(hop)) {
                return hop;
            }
        }
        return address;
    }
}
