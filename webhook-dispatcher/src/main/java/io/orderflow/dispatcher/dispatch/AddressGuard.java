package io.orderflow.dispatcher.dispatch;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Optional;

/**
 * Judges the address a delivery's connection is about to be opened to, after name resolution, and fails the connect
 * when the {@link AddressPolicy} refuses it. The check sits on the channel's connect operation itself, so the address
 * judged is the address connected to: there is no second lookup a DNS rebind could answer differently, and a pooled
 * connection stays bound to the address it was judged for.
 */
@ChannelHandler.Sharable
final class AddressGuard extends ChannelOutboundHandlerAdapter {

    /** The pipeline name of the guard; it goes first, next to the socket, so it sees the final address. */
    static final String NAME = "orderflow.addressGuard";

    /** A connection the policy refused; its message is the delivery's recorded error. */
    static final class AddressRefusedException extends IOException {

        AddressRefusedException(String reason) {
            super(reason);
        }
    }

    private final AddressPolicy policy;
    private final String scheme;

    AddressGuard(AddressPolicy policy, String scheme) {
        this.policy = policy;
        this.scheme = scheme;
    }

    @Override
    public void connect(ChannelHandlerContext ctx, SocketAddress remote, SocketAddress local, ChannelPromise promise) {
        Optional<String> refusal = remote instanceof InetSocketAddress inet && !inet.isUnresolved()
                ? policy.refusal(inet.getAddress(), scheme)
                : Optional.of(AddressPolicy.REFUSED + remote + " is not a resolved IP address");
        if (refusal.isPresent()) {
            promise.setFailure(new AddressRefusedException(refusal.get()));
            return;
        }
        ctx.connect(remote, local, promise);
    }
}
