package io.orderflow.gateway.caller;

import java.util.Locale;

/** Roles in ascending order: reads need viewer, decisions approver, every other change operator. */
public enum Role {
    VIEWER, APPROVER, OPERATOR;

    /** The role spelled as {@link io.orderflow.schemas.commands.Caller#role()} spells it. */
    public static Role of(String wire) {
        return wire == null ? VIEWER : valueOf(wire.toUpperCase(Locale.ROOT));
    }

    public boolean covers(Role needed) {
        return compareTo(needed) >= 0;
    }

    /** As the wire and the API spell it: {@code viewer}, {@code approver}, {@code operator}. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The refusal for a caller below this role, in the spec's words: {@code This needs the Operator role.} */
    public String needed() {
        String wire = wire();
        return "This needs the " + Character.toUpperCase(wire.charAt(0)) + wire.substring(1) + " role.";
    }
}
