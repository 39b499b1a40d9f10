package io.orderflow.schemas.model;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;

/** Status of one node of an order's plan. */
public enum NodeStatus {
    PENDING("pending"),
    RUNNING("running"),
    WAITING("waiting"),
    SUCCEEDED("succeeded"),
    FAILED("failed"),
    SKIPPED("skipped"),
    ROLLED_BACK("rolled_back");

    private final String wire;

    NodeStatus(String wire) {
        this.wire = wire;
    }

    /** The spelling used on the wire and in the API. */
    @JsonValue
    public String wire() {
        return wire;
    }

    /** The constant spelled {@code wire}, or {@code null} when there is none. */
    public static NodeStatus fromWire(String wire) {
        return Arrays.stream(values()).filter(v -> v.wire.equals(wire)).findFirst().orElse(null);
    }
}
