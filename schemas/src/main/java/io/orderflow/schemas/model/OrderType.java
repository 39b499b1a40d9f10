package io.orderflow.schemas.model;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;

/** The five order types. */
public enum OrderType {
    PURCHASE_REQUEST("purchase_request"),
    B2B_ORDER("b2b_order"),
    REORDER("reorder"),
    SUBSCRIPTION("subscription"),
    STOREFRONT_ORDER("storefront_order");

    private final String wire;

    OrderType(String wire) {
        this.wire = wire;
    }

    /** The spelling used on the wire and in the API. */
    @JsonValue
    public String wire() {
        return wire;
    }

    /** The constant spelled {@code wire}, or {@code null} when there is none. */
    public static OrderType fromWire(String wire) {
        return Arrays.stream(values()).filter(v -> v.wire.equals(wire)).findFirst().orElse(null);
    }
}
