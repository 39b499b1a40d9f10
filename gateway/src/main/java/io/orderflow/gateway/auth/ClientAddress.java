package io.orderflow.gateway.auth;

import java.net.InetSocketAddress;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.stereotype.Component;

/**
 * The address a request came from, for counting guesses: the connection's peer, or behind a trusted proxy the client
 * it names ({@link TrustedProxies} has already put that in the request's remote address; from anyone else the
 * forwarded headers were removed, so a client cannot plant an address by sending them itself).
 */
@Component
public class ClientAddress {

    public String of(ServerHttpRequest request) {
        InetSocketAddress remote = request.getRemoteAddress();
        return remote == null ? "unknown"
                : remote.getAddress() != null ? remote.getAddress().getHostAddress() : remote.getHostString();
    }
}
