package io.orderflow.gateway.caller;

/** Roles in ascending order: reads need viewer, decisions approver, every other change operator. */
public enum Role {
    VIEWER, APPROVER, OPERATOR;

    /** The role spelled as {@link io.orderflow.schemas.commands.Caller#role()} spells it. */
    public static Role of(String wire) {
        return wire == null ? VIEWER : valueOf(wire.toUpperCase(java.util.Locale.ROOT));
    }

    public boolean covers(Role needed) {
        return compareTo(needed) >= 0;
    }
}
