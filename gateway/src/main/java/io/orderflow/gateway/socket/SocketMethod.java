package io.orderflow.gateway.socket;

import io.orderflow.gateway.caller.Role;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** The order socket's methods and the role each needs (the spec's table under Order socket). */
enum SocketMethod {
    DECIDE(Role.APPROVER), DELIVER(Role.OPERATOR), CANCEL(Role.OPERATOR), CHAT(Role.VIEWER);

    final Role needs;

    SocketMethod(Role needs) {
        this.needs = needs;
    }

    static Optional<SocketMethod> of(String name) {
        return Arrays.stream(values()).filter(m -> m.name().toLowerCase(Locale.ROOT).equals(name)).findFirst();
    }
}
