package io.orderflow.schemas.model;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;

/** State of one edge of an order's plan, taken from the latest plan. */
public enum EdgeState {
    PENDING("pending"),
    ACTIVE("active"),
    INACTIVE("inactive");

    private final String wire;

    EdgeState(String wire) {
        this.wire = wire;
    }

    /** The spelling used on the wire and in the API. */
    @JsonValue
    public String wire() {
        return wire;
    }

    /** The constant spelled {@code wire}, or {@code null} when there is none. */
    public static EdgeState fromWire(String wire) {
        return Arrays.stream(values()).filter(v -> v.wire.equals(wire)).findFirst().orElse(null);
    }
}
